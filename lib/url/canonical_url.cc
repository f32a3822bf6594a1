#include "lib/url/canonical_url.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lib/encoding/ascii.h"
#include "lib/encoding/hex.h"
#include "lib/url/internal/percent_encoding.h"

namespace crawler::url {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::HexValue;
using encoding::StartsWithIgnoreCase;

// RFC 3986 2.3: percent-encoding these never changes what a URL means.
bool IsUnreserved(unsigned char c) {
  return encoding::IsAsciiAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// One run of AppendNormalizedPercentEncoding: no delimiter inside.
void AppendNormalizedRun(std::string_view run, std::string& out) {
  auto is_escape = [run](size_t i) {
    return run[i] == '%' && i + 2 < run.size() && HexValue(run[i + 1]) >= 0 &&
           HexValue(run[i + 2]) >= 0;
  };
  bool has_stray_percent = false;
  for (size_t i = 0; i < run.size(); ++i) {
    if (run[i] == '%' && !is_escape(i)) has_stray_percent = true;
  }
  for (size_t i = 0; i < run.size(); ++i) {
    if (!is_escape(i)) {
      out.push_back(run[i]);
      continue;
    }
    const auto value = static_cast<unsigned char>(HexValue(run[i + 1]) * 16 + HexValue(run[i + 2]));
    if (IsUnreserved(value) && !has_stray_percent) {
      out.push_back(static_cast<char>(value));
    } else {
      out.push_back('%');
      encoding::AppendHexByte(value, encoding::HexCase::kUpper, out);
    }
    i += 2;
  }
}

// RFC 3986 6.2.2.1-2: upper-case hex digits, decode unreserved characters.
//
// A '%' without two hex digits after it is kept, as the WHATWG parser keeps it, and it also
// stops decoding in its run (the text between two of "/;&="): decoding "%%34%31" would give
// "%41", which the next canonicalisation would decode again, so the canonical form would not be
// a fixed point. Runs are independent because no delimiter is a hex digit or ever decoded, so
// removing a parameter or a path parameter cannot change how another run is normalised.
void AppendNormalizedPercentEncoding(std::string_view in, std::string& out) {
  size_t begin = 0;
  while (begin <= in.size()) {
    size_t end = begin;
    while (end < in.size() && in[end] != '/' && in[end] != ';' && in[end] != '&' &&
           in[end] != '=') {
      ++end;
    }
    AppendNormalizedRun(in.substr(begin, end - begin), out);
    if (end < in.size()) out.push_back(in[end]);
    begin = end + 1;
  }
}

bool NameMatches(std::string_view name, std::string_view pattern) {
  if (!pattern.empty() && pattern.back() == '*') {
    return StartsWithIgnoreCase(name, pattern.substr(0, pattern.size() - 1));
  }
  return EqualsIgnoreCase(name, pattern);
}

bool ShouldStrip(std::string_view name, const CanonicalizeOptions& options) {
  auto any = [name](const auto& patterns) {
    return std::any_of(std::begin(patterns), std::end(patterns),
                       [name](std::string_view p) { return NameMatches(name, p); });
  };
  return (options.strip_session_ids && any(kSessionIdParams)) ||
         (options.strip_tracking_params && any(kTrackingParams)) ||
         any(options.extra_params_to_strip);
}

// Removes ";jsessionid=..." (up to the next ';' or the end) from one path segment.
std::string StripJsessionidPathParameter(std::string_view segment) {
  static constexpr std::string_view kParam = ";jsessionid=";
  std::string out;
  size_t i = 0;
  while (i < segment.size()) {
    if (segment[i] == ';' && StartsWithIgnoreCase(segment.substr(i), kParam)) {
      const size_t next = segment.find(';', i + 1);
      i = next == std::string_view::npos ? segment.size() : next;
      continue;
    }
    out.push_back(segment[i++]);
  }
  return out;
}

void AppendCanonicalPath(std::string_view path, const CanonicalizeOptions& options,
                         std::string& out) {
  // A parsed path is "/seg/seg/..." and holds no "." / ".." segments (the parser removed them).
  std::string segment;
  size_t begin = 1;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    segment.clear();
    AppendNormalizedPercentEncoding(path.substr(begin, end - begin), segment);
    out.push_back('/');
    if (options.strip_session_ids && segment.find(';') != std::string::npos) {
      std::string stripped = StripJsessionidPathParameter(segment);
      // "..;jsessionid=1" must not become "..": re-parsing would then remove a segment, and the
      // canonical form would stop being a fixed point.
      if (stripped != "." && stripped != "..") segment = std::move(stripped);
    }
    out.append(segment);
    begin = end + 1;
  }
}

void AppendCanonicalQuery(std::string_view query, const CanonicalizeOptions& options,
                          std::string& out) {
  std::string normalized;
  AppendNormalizedPercentEncoding(query, normalized);
  std::vector<std::string_view> kept;
  std::string_view rest = normalized;
  while (true) {
    const size_t amp = rest.find('&');
    const std::string_view param = rest.substr(0, amp);
    if (!ShouldStrip(param.substr(0, param.find('=')), options)) kept.push_back(param);
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  if (options.sort_query_params) {
    std::stable_sort(kept.begin(), kept.end(), [](std::string_view a, std::string_view b) {
      return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
    });
  }
  const size_t query_begin = out.size() + 1;
  out.push_back('?');
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out.push_back('&');
    out.append(kept[i]);
  }
  if (out.size() == query_begin) out.pop_back();  // nothing left: no '?'
}

}  // namespace

absl::StatusOr<CanonicalUrl> Canonicalize(const Url& url, const CanonicalizeOptions& options) {
  const std::string_view href = url.href();
  std::string out;
  out.reserve(href.size());
  // Scheme, credentials, host and port are canonical as the parser serialised them.
  out.append(href.substr(0, static_cast<size_t>(url.path().data() - href.data())));
  AppendCanonicalPath(url.path(), options, out);
  if (url.has_query()) AppendCanonicalQuery(url.query(), options, out);
  return CanonicalUrl(std::move(out));
}

absl::StatusOr<CanonicalUrl> Canonicalize(std::string_view absolute_url,
                                          const CanonicalizeOptions& options) {
  absl::StatusOr<Url> url = Url::Parse(absolute_url);
  if (!url.ok()) return url.status();
  return Canonicalize(*url, options);
}

}  // namespace crawler::url
