#include "services/common/config/key_table.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"

namespace crawler::config {

absl::StatusOr<double> ParseVisitRate(std::string_view text) {
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  const size_t slash = trimmed.find('/');
  const absl::string_view number = absl::StripAsciiWhitespace(trimmed.substr(0, slash));
  const absl::string_view unit = slash == absl::string_view::npos
                                     ? absl::string_view("d")
                                     : absl::StripAsciiWhitespace(trimmed.substr(slash + 1));
  double value = 0;
  double per_day = 0;
  if (unit == "s") per_day = 86400;
  if (unit == "min") per_day = 1440;
  if (unit == "h") per_day = 24;
  if (unit == "d") per_day = 1;
  if (!absl::SimpleAtod(number, &value) || !(value > 0) || !std::isfinite(value) || per_day == 0) {
    return absl::InvalidArgumentError(absl::StrCat("not a visit rate: \"", std::string(text),
                                                   "\" (e.g. 5/s, 300/min, 20/h, 1000/d)"));
  }
  return value * per_day;
}

absl::StatusOr<absl::Duration> ParseNonNegativeDuration(std::string_view text) {
  absl::Duration d;
  if (!absl::ParseDuration(absl::string_view(text.data(), text.size()), &d) ||
      d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a duration: \"", std::string(text), "\" (e.g. 50ms, 2s, 1m)"));
  }
  return d;
}

absl::StatusOr<YAML::Node> ParseYamlDocument(std::string_view text, std::string_view source) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": ", e.what()));
  }
  if (documents.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(source), ": ", documents.size(),
        " YAML documents (\"---\" starts another); one is expected, so the rest would be "
        "ignored"));
  }
  return documents.empty() ? YAML::Node() : documents.front();
}

namespace internal {

std::string KindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBool:
      return "a boolean (true or false)";
    case ValueKind::kInteger:
      return "an integer in the key's range";
    case ValueKind::kDouble:
      return "a number";
    case ValueKind::kDuration:
    case ValueKind::kDays:
      return "a duration (e.g. 50ms, 2s, 1m)";
    case ValueKind::kString:
      return "a string";
    case ValueKind::kStringList:
      return "a list of strings";
    case ValueKind::kVisitRate:
      return "a visit rate (e.g. 5/s, 20/h, 1000/d)";
  }
  return "a value";
}

absl::Status BadValue(const YAML::Node& node, ValueKind kind) {
  if (node.IsScalar()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not ", KindName(kind), ": \"", node.Scalar(), "\""));
  }
  const char* shape = node.IsSequence() ? "a list" : node.IsMap() ? "a mapping" : "nothing";
  return absl::InvalidArgumentError(absl::StrCat("expected ", KindName(kind), ", got ", shape));
}

absl::Status DecodeScalar(const YAML::Node& node, ValueKind kind, std::string& text) {
  if (!node.IsScalar()) return BadValue(node, kind);
  text = node.Scalar();
  return absl::OkStatus();
}

std::string FormatDouble(double value, ValueKind kind) {
  if (kind == ValueKind::kVisitRate) return value > 0 ? absl::StrCat(value, "/d") : "0";
  if (kind == ValueKind::kDays) {
    // Whole nanoseconds: 60 s in days and back is not exactly 60 s in floating point.
    return absl::FormatDuration(absl::Nanoseconds(std::llround(value * 86400e9)));
  }
  return absl::StrCat(value);
}

void DuplicateKeyInTable(const std::string& name) {
  // A table is built by our own code: two keys of one name are a programming error.
  std::fprintf(stderr, "config key table: key or flag of \"%s\" defined twice\n", name.c_str());
  std::abort();
}

absl::Status CheckMapKeys(const YAML::Node& map, const std::vector<std::string>& known) {
  if (!map.IsMap()) return absl::InvalidArgumentError("not a mapping");
  std::map<std::string, int> first_line;  // 1-based, as editors count
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) return absl::InvalidArgumentError("keys must be plain names");
    const std::string& key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::vector<std::string> sorted = known;
      std::sort(sorted.begin(), sorted.end());
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key \"", key, "\"; known keys: ", absl::StrJoin(sorted, ", ")));
    }
    // yaml-cpp keeps both entries of a repeated key (lookups see the first): a silent override
    // either way, so it is an error. The lines point the user at both.
    const int line = entry.first.Mark().line + 1;
    if (auto [it, added] = first_line.emplace(key, line); !added) {
      return absl::InvalidArgumentError(absl::StrCat("key \"", key, "\" given twice (lines ",
                                                     it->second, " and ", line, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<YAML::Node> LoadYamlFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  return ParseYamlDocument(text, absl::StrCat("config file ", path));
}

}  // namespace internal
}  // namespace crawler::config
