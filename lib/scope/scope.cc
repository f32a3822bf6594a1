#include "lib/scope/scope.h"

#include <re2/re2.h>

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/utf8.h"

namespace crawler::scope {

struct Scope::Data {
  ScopeOptions options;
  std::vector<std::string> suffixes;            // normalised
  absl::flat_hash_set<std::string> seed_sites;  // registrable domains of the seeds
  const url::PublicSuffixList* psl = nullptr;
  std::vector<std::unique_ptr<re2::RE2>> includes;
  std::vector<std::unique_ptr<re2::RE2>> excludes;
};

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kInScope:
      return "in_scope";
    case Verdict::kHostNotAllowed:
      return "host_not_allowed";
    case Verdict::kOtherSite:
      return "other_site";
    case Verdict::kNotIncluded:
      return "not_included";
    case Verdict::kExcluded:
      return "excluded";
    case Verdict::kTooDeep:
      return "too_deep";
    case Verdict::kTooLong:
      return "trap_too_long";
    case Verdict::kRepeatedSegments:
      return "trap_repeated_segments";
    case Verdict::kTooManyParams:
      return "trap_too_many_params";
  }
  return "unknown";
}

bool IsTrap(Verdict verdict) {
  return verdict == Verdict::kTooLong || verdict == Verdict::kRepeatedSegments ||
         verdict == Verdict::kTooManyParams;
}

namespace {

// `text` quoted, abbreviated past 80 bytes.
std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", encoding::Abbreviated(text, 80), "\"");
}

// The non-empty pieces of `text` between any of `separators`.
std::vector<std::string_view> Pieces(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> pieces;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find_first_of(separators, begin);
    if (end == std::string_view::npos) end = text.size();
    if (end > begin) pieces.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return pieces;
}

// True when some non-empty segment of `path` occurs more than `max_repeats` times.
bool HasRepeatedSegments(std::string_view path, uint32_t max_repeats) {
  const std::vector<std::string_view> segments = Pieces(path, "/");
  if (segments.size() <= max_repeats) return false;
  absl::flat_hash_map<std::string_view, uint32_t> counts;
  for (std::string_view segment : segments) {
    if (++counts[segment] > max_repeats) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> NormalizeHostSuffix(std::string_view suffix) {
  std::string_view s = suffix;
  while (!s.empty() && s.front() == '.') s.remove_prefix(1);
  while (!s.empty() && s.back() == '.') s.remove_suffix(1);
  if (s.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty host suffix: \"", std::string(suffix), "\""));
  }
  // Let the URL parser do IDNA and reject forbidden code points.
  absl::StatusOr<url::Url> parsed = url::Url::Parse(absl::StrCat("http://", std::string(s), "/"));
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid host suffix \"", std::string(suffix),
                                                   "\": ", parsed.status().message()));
  }
  return std::string(parsed->host());
}

bool HostHasSuffix(std::string_view host, std::string_view suffix) {
  if (host.size() < suffix.size()) return false;
  if (host.substr(host.size() - suffix.size()) != suffix) return false;
  return host.size() == suffix.size() || host[host.size() - suffix.size() - 1] == '.';
}

absl::StatusOr<Scope> Scope::Create(const ScopeOptions& options, const std::vector<url::Url>& seeds,
                                    const url::PublicSuffixList* psl) {
  auto data = std::make_shared<Data>();
  data->options = options;
  for (const std::string& suffix : options.allowed_host_suffixes) {
    absl::StatusOr<std::string> normalised = NormalizeHostSuffix(suffix);
    if (!normalised.ok()) return normalised.status();
    data->suffixes.push_back(*std::move(normalised));
  }
  if (options.same_site_only) {
    if (psl == nullptr) {
      return absl::InvalidArgumentError("same_site_only needs the Public Suffix List");
    }
    data->psl = psl;
    for (const url::Url& seed : seeds) {
      data->seed_sites.insert(psl->RegistrableDomain(seed.host()));
    }
  }
  auto compile = [](const std::vector<std::string>& patterns, const char* what,
                    std::vector<std::unique_ptr<re2::RE2>>& out) -> absl::Status {
    re2::RE2::Options re_options;
    re_options.set_log_errors(false);
    for (const std::string& pattern : patterns) {
      auto re = std::make_unique<re2::RE2>(pattern, re_options);
      if (!re->ok()) {
        // Named by its start: a pattern (and RE2's error, which quotes it) may be megabytes,
        // and the error travels in a reply's metadata.
        return absl::InvalidArgumentError(absl::StrCat("invalid ", what, " pattern ",
                                                       Quoted(pattern), ": ",
                                                       Quoted(re->error())));
      }
      out.push_back(std::move(re));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = compile(options.include_patterns, "include", data->includes); !s.ok()) {
    return s;
  }
  if (absl::Status s = compile(options.exclude_patterns, "exclude", data->excludes); !s.ok()) {
    return s;
  }
  return Scope(std::move(data));
}

Verdict Scope::Check(const url::Url& url, std::string_view canonical_url, uint32_t depth) const {
  const Data& d = *data_;
  const std::string_view host = url.host();
  if (!d.suffixes.empty()) {
    bool allowed = false;
    for (const std::string& suffix : d.suffixes) {
      if (HostHasSuffix(host, suffix)) {
        allowed = true;
        break;
      }
    }
    if (!allowed) return Verdict::kHostNotAllowed;
  }
  if (d.psl != nullptr && !d.seed_sites.contains(d.psl->RegistrableDomain(host))) {
    return Verdict::kOtherSite;
  }
  const re2::StringPiece text(canonical_url.data(), canonical_url.size());
  if (!d.includes.empty()) {
    bool included = false;
    for (const auto& re : d.includes) {
      if (re2::RE2::PartialMatch(text, *re)) {
        included = true;
        break;
      }
    }
    if (!included) return Verdict::kNotIncluded;
  }
  for (const auto& re : d.excludes) {
    if (re2::RE2::PartialMatch(text, *re)) return Verdict::kExcluded;
  }
  if (d.options.max_depth.has_value() && depth > *d.options.max_depth) return Verdict::kTooDeep;
  const ScopeOptions& o = d.options;
  if (o.max_url_bytes > 0 && canonical_url.size() > o.max_url_bytes) return Verdict::kTooLong;
  if (o.max_segment_repeats > 0 && HasRepeatedSegments(url.path(), o.max_segment_repeats)) {
    return Verdict::kRepeatedSegments;
  }
  if (o.max_query_params > 0 && Pieces(url.query(), "&;").size() > o.max_query_params) {
    return Verdict::kTooManyParams;
  }
  return Verdict::kInScope;
}

}  // namespace crawler::scope
