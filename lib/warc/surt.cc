#include "lib/warc/surt.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "lib/url/url.h"

namespace crawler::warc {
namespace {

// Step 1: "http://www<digits>." or "https://www<digits>." loses "www<digits>.".
std::string StripWww(std::string_view url) {
  const size_t scheme_end = url.substr(0, 8).find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  size_t i = scheme_end + 3;
  if (url.substr(i, 3) != "www") return std::string(url);
  i += 3;
  while (i < url.size() && url[i] >= '0' && url[i] <= '9') ++i;
  if (i >= url.size() || url[i] != '.') return std::string(url);
  return std::string(url.substr(0, scheme_end + 3)) + std::string(url.substr(i + 1));
}

// `s` cut at every `separator` (n separators give n + 1 pieces, empty ones included).
std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> pieces;
  while (true) {
    const size_t at = s.find(separator);
    pieces.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return pieces;
    s.remove_prefix(at + 1);
  }
}

}  // namespace

std::string SurtKey(std::string_view url) {
  if (url.substr(0, 6) != "https:" && url.substr(0, 5) != "http:") return std::string(url);
  std::string stripped = StripWww(url);
  const std::string lowered = absl::AsciiStrToLower(stripped);
  absl::StatusOr<url::Url> parsed = url::Url::Parse(lowered);
  if (!parsed.ok()) return stripped;
  std::vector<std::string_view> labels = Split(parsed->host(), '.');
  std::string key;
  for (auto label = labels.rbegin(); label != labels.rend(); ++label) {
    if (!key.empty() || label != labels.rbegin()) key.push_back(',');
    key.append(*label);
  }
  if (!parsed->port().empty()) key.append(":").append(parsed->port());
  key.append(")").append(parsed->path());
  if (parsed->has_query() && !parsed->query().empty()) {
    std::vector<std::string_view> params = Split(parsed->query(), '&');
    std::sort(params.begin(), params.end());
    for (size_t i = 0; i < params.size(); ++i) key.append(i == 0 ? "?" : "&").append(params[i]);
  }
  return key;
}

}  // namespace crawler::warc
