#include "tools/crawlsim/value_distribution.h"

#include <cmath>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/crawlsim/random.h"

namespace crawler::crawlsim {
namespace {

absl::StatusOr<double> ParseValue(absl::string_view text, absl::string_view what) {
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat("bad ", what, ": \"", text, "\""));
  }
  return value;
}

absl::StatusOr<std::vector<double>> ParseList(absl::string_view text, absl::string_view what) {
  std::vector<double> values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    absl::StatusOr<double> value = ParseValue(part, what);
    if (!value.ok()) return value.status();
    values.push_back(*value);
  }
  return values;
}

absl::Status CheckNonNegative(const std::vector<double>& values, absl::string_view spec) {
  if (values.empty()) return absl::InvalidArgumentError(absl::StrCat("no values in ", spec));
  for (double value : values) {
    if (!(value >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat("negative value ", value, " in ", spec));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ValueDistribution> ValueDistribution::Parse(std::string_view spec_in) {
  const absl::string_view spec(spec_in.data(), spec_in.size());
  ValueDistribution distribution;
  distribution.spec_ = std::string(spec_in);
  absl::string_view rest = spec;
  if (absl::ConsumePrefix(&rest, "mix:")) {
    double total = 0;
    for (absl::string_view part : absl::StrSplit(rest, '/')) {
      const std::pair<absl::string_view, absl::string_view> weighted =
          absl::StrSplit(part, absl::MaxSplits('@', 1));
      absl::StatusOr<double> weight = ParseValue(weighted.first, "mixture weight");
      if (!weight.ok()) return weight.status();
      const absl::string_view inner = weighted.second;
      if (!(*weight > 0) ||
          !(absl::StartsWith(inner, "gamma:") || absl::StartsWith(inner, "lognormal:") ||
            absl::StartsWith(inner, "list:") || absl::StartsWith(inner, "const:"))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "mix: needs WEIGHT@SPEC parts, weights > 0, specs gamma, lognormal, list or const: \"",
            part, "\""));
      }
      absl::StatusOr<ValueDistribution> component = Parse(std::string_view(inner.data(), inner.size()));
      if (!component.ok()) return component.status();
      total += *weight;
      distribution.components_.push_back(*std::move(component));
      distribution.cumulative_.push_back(total);
    }
    for (double& c : distribution.cumulative_) c /= total;
    distribution.cumulative_.back() = 1.0;
    distribution.kind_ = Kind::kMixture;
    return distribution;
  }
  if (absl::ConsumePrefix(&rest, "gamma:") || absl::ConsumePrefix(&rest, "lognormal:")) {
    const bool gamma = absl::StartsWith(spec, "gamma:");
    absl::StatusOr<std::vector<double>> params = ParseList(rest, "distribution parameter");
    if (!params.ok()) return params.status();
    if (params->size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("\"", spec, "\" needs two parameters"));
    }
    distribution.kind_ = gamma ? Kind::kGamma : Kind::kLogNormal;
    distribution.a_ = (*params)[0];
    distribution.b_ = (*params)[1];
    if (gamma && !(distribution.a_ > 0 && distribution.b_ > 0)) {
      return absl::InvalidArgumentError("gamma:SHAPE,SCALE needs SHAPE > 0 and SCALE > 0");
    }
    if (!gamma && !(distribution.b_ >= 0)) {
      return absl::InvalidArgumentError("lognormal:MU,SIGMA needs SIGMA >= 0");
    }
    return distribution;
  }
  if (absl::ConsumePrefix(&rest, "list:")) {
    absl::StatusOr<std::vector<double>> values = ParseList(rest, "value");
    if (!values.ok()) return values.status();
    if (absl::Status s = CheckNonNegative(*values, spec); !s.ok()) return s;
    distribution.values_ = *std::move(values);
    return distribution;
  }
  if (absl::ConsumePrefix(&rest, "const:")) {
    absl::StatusOr<double> value = ParseValue(rest, "value");
    if (!value.ok()) return value.status();
    distribution.values_ = {*value};
    if (absl::Status s = CheckNonNegative(distribution.values_, spec); !s.ok()) return s;
    return distribution;
  }
  absl::ConsumePrefix(&rest, "file:");
  std::ifstream in{std::string(rest)};
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read values from \"", rest, "\""));
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    absl::StatusOr<double> value = ParseValue(text, absl::StrCat("value on line ", line_number));
    if (!value.ok()) return value.status();
    distribution.values_.push_back(*value);
  }
  if (absl::Status s = CheckNonNegative(distribution.values_, spec); !s.ok()) return s;
  return distribution;
}

double ValueDistribution::DrawOne(Sampler& sampler, int64_t index) const {
  switch (kind_) {
    case Kind::kGamma:
      return sampler.Gamma(a_, b_);
    case Kind::kLogNormal:
      return sampler.LogNormal(a_, b_);
    case Kind::kValues:
      return values_[static_cast<size_t>(index) % values_.size()];
    case Kind::kMixture: {
      const double u = sampler.Uniform();
      size_t c = 0;
      while (c + 1 < cumulative_.size() && u >= cumulative_[c]) ++c;
      return components_[c].DrawOne(sampler, index);
    }
  }
  return 0;
}

std::vector<double> ValueDistribution::Draw(int64_t count, uint64_t seed) const {
  std::vector<double> values(static_cast<size_t>(count));
  Sampler sampler(seed);
  for (int64_t i = 0; i < count; ++i) values[i] = DrawOne(sampler, i);
  return values;
}

double ValueDistribution::mean() const {
  switch (kind_) {
    case Kind::kGamma:
      return a_ * b_;
    case Kind::kLogNormal:
      return std::exp(a_ + 0.5 * b_ * b_);
    case Kind::kValues: {
      double sum = 0;
      for (double v : values_) sum += v;
      return sum / static_cast<double>(values_.size());
    }
    case Kind::kMixture: {
      double sum = 0;
      double previous = 0;
      for (size_t c = 0; c < components_.size(); ++c) {
        sum += (cumulative_[c] - previous) * components_[c].mean();
        previous = cumulative_[c];
      }
      return sum;
    }
  }
  return 0;
}

}  // namespace crawler::crawlsim
