#include "lib/robots/robots_rules.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "lib/encoding/ascii.h"
#include "lib/encoding/hex.h"
#include "lib/robots/robots_parser.h"

namespace crawler::robots {
namespace {

using encoding::HexValue;

// RFC 3986 §2.3.
bool IsUnreserved(unsigned char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

void AppendEscaped(unsigned char c, std::string& out) {
  out.push_back('%');
  encoding::AppendHexByte(c, encoding::HexCase::kUpper, out);
}

// Appends the canonical form of `in` (see the header, "Matching"). In a pattern "*" stays the
// wildcard; in a path it is a literal and becomes "%2A". "$" is always literal here: the
// caller strips a pattern's final "$" anchor first.
void AppendCanonical(std::string_view in, bool is_pattern, std::string& out) {
  out.reserve(out.size() + in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(in[i]);
    if (c == '%') {
      const int hi = i + 2 < in.size() ? HexValue(in[i + 1]) : -1;
      const int lo = i + 2 < in.size() ? HexValue(in[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        AppendEscaped('%', out);
        continue;
      }
      const unsigned char decoded = static_cast<unsigned char>(hi * 16 + lo);
      if (IsUnreserved(decoded)) {
        out.push_back(static_cast<char>(decoded));
      } else {
        AppendEscaped(decoded, out);
      }
      i += 2;
    } else if (c <= 0x20 || c >= 0x7F || c == '$' || (c == '*' && !is_pattern)) {
      AppendEscaped(c, out);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
}

// The leftmost occurrence of `needle` in `haystack` at or after `from`, or npos. glibc's memmem
// uses the linear-time two-way algorithm for long needles (short ones cost little anyway);
// std::string_view::find compares at every candidate position, |haystack| x |needle| at worst,
// which a hostile file with long segments could exploit.
size_t Find(std::string_view haystack, std::string_view needle, size_t from) {
  if (needle.empty()) return from;
  if (from >= haystack.size()) return std::string_view::npos;
  const void* hit = memmem(haystack.data() + from, haystack.size() - from, needle.data(),
                           needle.size());
  return hit == nullptr ? std::string_view::npos
                        : static_cast<size_t>(static_cast<const char*>(hit) - haystack.data());
}

// True if the canonical `pattern` (with "*" wildcards, and an end anchor if `anchored`)
// matches a prefix of the canonical `path` (all of it if anchored). Each literal segment
// between wildcards is located leftmost, which is exact for "*"-only patterns: a later match of
// a middle segment can only leave less room for the segments after it.
bool PatternMatches(std::string_view pattern, bool anchored, std::string_view path) {
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) {
    return anchored ? path == pattern : path.starts_with(pattern);
  }
  if (!path.starts_with(pattern.substr(0, star))) return false;
  size_t at = star;  // the first path octet not yet consumed
  std::string_view rest = pattern.substr(star + 1);
  while (true) {
    star = rest.find('*');
    if (star == std::string_view::npos) {
      if (anchored) return path.size() - at >= rest.size() && path.ends_with(rest);
      return Find(path, rest, at) != std::string_view::npos;
    }
    const std::string_view segment = rest.substr(0, star);
    const size_t found = Find(path, segment, at);
    if (found == std::string_view::npos) return false;
    at = found + segment.size();
    rest = rest.substr(star + 1);
  }
}

bool IsTokenChar(char c) { return absl::ascii_isalpha(c) || c == '-' || c == '_'; }

// The product token at the start of a user-agent value or of the caller's token (§2.2.1).
std::string_view ProductToken(std::string_view value) {
  size_t n = 0;
  while (n < value.size() && IsTokenChar(value[n])) ++n;
  return value.substr(0, n);
}

bool IsWildcardAgent(std::string_view value) {
  return !value.empty() && value[0] == '*' && (value.size() == 1 || value[1] == ' ' || value[1] == '\t');
}

// "10", "0.5", "2." or ".5" seconds; nothing else (no sign, exponent, "inf" or units).
std::optional<absl::Duration> ParseCrawlDelay(std::string_view value) {
  size_t digits = 0;
  size_t dots = 0;
  for (char c : value) {
    if (absl::ascii_isdigit(c)) {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return std::nullopt;
    }
  }
  if (digits == 0 || dots > 1) return std::nullopt;
  double seconds = 0;
  if (!absl::SimpleAtod(absl::string_view(value.data(), value.size()), &seconds) || !(seconds >= 0)) return std::nullopt;
  return absl::Seconds(seconds);  // saturates to InfiniteDuration for absurd values
}

struct Rule {
  RuleKind kind;
  bool anchored;       // the pattern ended in "$"
  int line;
  std::string canonical;  // without the final "$"
  std::string written;
  size_t priority;     // canonical length, counting the "$" (§2.2.2 "most octets")
};

struct Group {
  std::vector<Rule> rules;
  std::optional<absl::Duration> crawl_delay;
};

enum class Blanket { kNone, kAllowAll, kDisallowAll };

}  // namespace

struct RobotsRules::Data {
  Blanket blanket = Blanket::kNone;
  std::vector<Group> groups;
  // Lowercased product token -> indexes into `groups`, ascending.
  absl::flat_hash_map<std::string, std::vector<size_t>> groups_by_token;
  std::vector<size_t> wildcard_groups;
  std::vector<std::string> sitemaps;
  size_t ignored_bytes = 0;

  // The groups that apply to `product_token`, or nullptr if none (then everything is allowed).
  const std::vector<size_t>* Select(std::string_view product_token) const {
    const std::string_view token = ProductToken(product_token);
    if (!token.empty()) {
      auto it = groups_by_token.find(encoding::ToAsciiLower(token));
      if (it != groups_by_token.end()) return &it->second;
    }
    return wildcard_groups.empty() ? nullptr : &wildcard_groups;
  }
};

// Turns parser events into groups (the §2.1 grammar's group structure).
class RobotsRules::Builder : public RobotsParseHandler {
 public:
  explicit Builder(Data& data) : data_(data) {}

  void HandleUserAgent(int /*line*/, std::string_view value) override {
    if (!collecting_agents_) {
      data_.groups.emplace_back();
      collecting_agents_ = true;
    }
    const size_t group = data_.groups.size() - 1;
    if (IsWildcardAgent(value)) {
      AddGroupOnce(data_.wildcard_groups, group);
      return;
    }
    const std::string_view token = ProductToken(value);
    if (!token.empty()) AddGroupOnce(data_.groups_by_token[encoding::ToAsciiLower(token)], group);
  }

  void HandleAllow(int line, std::string_view value) override {
    AddRule(RuleKind::kAllow, line, value);
  }
  void HandleDisallow(int line, std::string_view value) override {
    AddRule(RuleKind::kDisallow, line, value);
  }

  void HandleCrawlDelay(int /*line*/, std::string_view value) override {
    if (data_.groups.empty()) return;
    const std::optional<absl::Duration> delay = ParseCrawlDelay(value);
    if (!delay.has_value()) return;
    std::optional<absl::Duration>& current = data_.groups.back().crawl_delay;
    if (!current.has_value() || *delay > *current) current = delay;
  }

  void HandleSitemap(int /*line*/, std::string_view value) override {
    if (value.empty()) return;
    if (seen_sitemaps_.insert(std::string(value)).second) data_.sitemaps.emplace_back(value);
  }

  void HandleParseLimit(int /*first_line*/, size_t ignored_bytes) override {
    data_.ignored_bytes = ignored_bytes;
  }

 private:
  static void AddGroupOnce(std::vector<size_t>& groups, size_t group) {
    if (groups.empty() || groups.back() != group) groups.push_back(group);
  }

  void AddRule(RuleKind kind, int line, std::string_view value) {
    if (data_.groups.empty()) return;  // outside any group (§2.1): ignored
    collecting_agents_ = false;
    if (value.empty()) return;  // "Disallow:" with no path disallows nothing
    Rule rule{kind, /*anchored=*/false, line, std::string(), std::string(value), 0};
    std::string_view body = value;
    if (body.back() == '$') {
      rule.anchored = true;
      body.remove_suffix(1);
    }
    AppendCanonical(body, /*is_pattern=*/true, rule.canonical);
    rule.priority = rule.canonical.size() + (rule.anchored ? 1 : 0);
    data_.groups.back().rules.push_back(std::move(rule));
  }

  Data& data_;
  // True after a user-agent line until the next rule: further user-agent lines join the group.
  bool collecting_agents_ = false;
  absl::flat_hash_set<std::string> seen_sitemaps_;
};

std::string_view RuleKindName(RuleKind kind) {
  return kind == RuleKind::kAllow ? "Allow" : "Disallow";
}

RobotsRules::RobotsRules() : RobotsRules(AllowAll()) {}

RobotsRules::RobotsRules(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

RobotsRules RobotsRules::Parse(std::string_view body) {
  auto data = std::make_shared<Data>();
  Builder builder(*data);
  ParseRobotsTxt(body, builder);
  return RobotsRules(std::move(data));
}

RobotsRules RobotsRules::AllowAll() {
  auto data = std::make_shared<Data>();
  data->blanket = Blanket::kAllowAll;
  return RobotsRules(std::move(data));
}

RobotsRules RobotsRules::DisallowAll() {
  auto data = std::make_shared<Data>();
  data->blanket = Blanket::kDisallowAll;
  return RobotsRules(std::move(data));
}

MatchResult RobotsRules::Match(std::string_view product_token,
                               std::string_view path_and_query) const {
  if (data_->blanket == Blanket::kAllowAll) return MatchResult{true, std::nullopt};

  std::string path;
  AppendCanonical(path_and_query.empty() ? std::string_view("/") : path_and_query,
                  /*is_pattern=*/false, path);
  if (std::string_view(path).substr(0, path.find('?')) == "/robots.txt") {
    return MatchResult{true, std::nullopt};
  }
  if (data_->blanket == Blanket::kDisallowAll) return MatchResult{false, std::nullopt};

  const std::vector<size_t>* groups = data_->Select(product_token);
  if (groups == nullptr) return MatchResult{true, std::nullopt};

  const Rule* best = nullptr;
  for (size_t g : *groups) {
    for (const Rule& rule : data_->groups[g].rules) {
      // Only a longer pattern, or an allow of equal length over a disallow, can beat `best`;
      // skipping the rest first keeps matching cheap and makes the earliest line win ties.
      if (best != nullptr &&
          (rule.priority < best->priority ||
           (rule.priority == best->priority &&
            (rule.kind == RuleKind::kDisallow || best->kind == RuleKind::kAllow)))) {
        continue;
      }
      if (PatternMatches(rule.canonical, rule.anchored, path)) best = &rule;
    }
  }
  if (best == nullptr) return MatchResult{true, std::nullopt};
  return MatchResult{best->kind == RuleKind::kAllow,
                     MatchedRule{best->kind, best->written, best->line}};
}

absl::StatusOr<MatchResult> RobotsRules::MatchUrl(std::string_view product_token,
                                                  std::string_view url) const {
  absl::StatusOr<std::string> path = PathAndQuery(url);
  if (!path.ok()) return path.status();
  return Match(product_token, *path);
}

absl::StatusOr<std::string> RobotsRules::PathAndQuery(std::string_view url) {
  std::string_view rest;
  if (url.starts_with("/") && !url.starts_with("//")) {
    rest = url;
  } else {
    size_t authority = 0;
    if (url.starts_with("//")) {
      authority = 2;
    } else {
      const size_t sep = url.find("://");
      bool scheme_ok = sep != std::string_view::npos && sep > 0 && absl::ascii_isalpha(url[0]);
      for (size_t i = 0; scheme_ok && i < sep; ++i) {
        const char c = url[i];
        scheme_ok = absl::ascii_isalnum(c) || c == '+' || c == '-' || c == '.';
      }
      if (!scheme_ok) {
        return absl::InvalidArgumentError("not an absolute URL or a path starting with '/': \"" +
                                          std::string(url) + "\"");
      }
      authority = sep + 3;
    }
    const size_t path_begin = url.find_first_of("/?#", authority);
    rest = path_begin == std::string_view::npos ? std::string_view() : url.substr(path_begin);
  }
  rest = rest.substr(0, rest.find('#'));
  std::string path;
  if (!rest.starts_with("/")) path = "/";
  path.append(rest);
  return path;
}

std::optional<absl::Duration> RobotsRules::CrawlDelay(std::string_view product_token) const {
  const std::vector<size_t>* groups = data_->Select(product_token);
  if (groups == nullptr) return std::nullopt;
  std::optional<absl::Duration> delay;
  for (size_t g : *groups) {
    const std::optional<absl::Duration>& d = data_->groups[g].crawl_delay;
    if (d.has_value() && (!delay.has_value() || *d > *delay)) delay = d;
  }
  return delay;
}

const std::vector<std::string>& RobotsRules::Sitemaps() const { return data_->sitemaps; }

size_t RobotsRules::ignored_bytes() const { return data_->ignored_bytes; }

}  // namespace crawler::robots
