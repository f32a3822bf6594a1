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

std::vector<double> ValueDistribution::Draw(int64_t count, uint64_t seed) const {
  std::vector<double> values(static_cast<size_t>(count));
  Sampler sampler(seed);
  for (int64_t i = 0; i < count; ++i) {
    switch (kind_) {
      case Kind::kGamma:
        values[i] = sampler.Gamma(a_, b_);
        break;
      case Kind::kLogNormal:
        values[i] = sampler.LogNormal(a_, b_);
        break;
      case Kind::kValues:
        values[i] = values_[static_cast<size_t>(i) % values_.size()];
        break;
    }
  }
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
  }
  return 0;
}

}  // namespace crawler::crawlsim
