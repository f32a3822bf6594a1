#include "lib/html/internal/page_builder.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/hash/hash.h"
#include "lib/encoding/ascii.h"
#include "lib/html/script_navigation.h"

namespace crawler::html::internal {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::IsAsciiAlnum;
using encoding::IsAsciiAlpha;
using encoding::IsAsciiWhitespace;
using encoding::ToAsciiLower;
using encoding::TrimAsciiWhitespace;

// What the URL parser strips from both ends: C0 controls and space.
std::string_view TrimC0AndSpace(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
  return s;
}

// The scheme of a URL string, lowercased, as the URL parser would read it (tabs and newlines
// are removed anywhere); empty if there is none. Used only to say why lib/url rejected it.
std::string SchemeOf(std::string_view value) {
  constexpr size_t kMaxScheme = 32;
  std::string scheme;
  for (char c : TrimC0AndSpace(value)) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c == ':') return scheme;
    const bool ok = scheme.empty() ? IsAsciiAlpha(c)
                                   : IsAsciiAlnum(c) || c == '+' || c == '-' || c == '.';
    if (!ok || scheme.size() == kMaxScheme) return "";
    scheme.push_back(ToAsciiLower(c));
  }
  return "";
}

}  // namespace

bool HasToken(std::string_view tokens, std::string_view token) {
  size_t pos = 0;
  while (pos < tokens.size()) {
    while (pos < tokens.size() && IsAsciiWhitespace(tokens[pos])) ++pos;
    size_t end = pos;
    while (end < tokens.size() && !IsAsciiWhitespace(tokens[end])) ++end;
    if (end > pos && EqualsIgnoreCase(tokens.substr(pos, end - pos), token)) return true;
    pos = end;
  }
  return false;
}

std::string PragmaLanguage(std::string_view content) {
  if (content.find(',') != std::string_view::npos) return "";
  content = TrimAsciiWhitespace(content);
  size_t end = 0;
  while (end < content.size() && !IsAsciiWhitespace(content[end])) ++end;
  return std::string(content.substr(0, end));
}

void NoteMeta(std::optional<std::string_view> name, std::optional<std::string_view> http_equiv,
              std::optional<std::string_view> content, const ExtractOptions& options,
              DocumentFacts& facts) {
  if (!content) return;
  if (name) {
    const std::string_view trimmed = TrimAsciiWhitespace(*name);
    for (const std::string& robots_name : options.robots_meta_names) {
      if (EqualsIgnoreCase(trimmed, robots_name)) {
        facts.robots |= ParseRobotsMeta(*content);
        break;
      }
    }
  }
  if (http_equiv && !facts.content_language &&
      EqualsIgnoreCase(TrimAsciiWhitespace(*http_equiv), "content-language")) {
    facts.content_language = std::string(*content);
  }
}

url::Url ApplyFacts(const DocumentFacts& facts, const url::Url& page_url,
                    const ExtractOptions& options, ExtractedPage& page) {
  page.meta.noindex = facts.robots.noindex;
  page.meta.nofollow = facts.robots.nofollow;
  if (facts.html_lang) {
    page.meta.language = std::string(TrimAsciiWhitespace(*facts.html_lang));
  } else if (facts.content_language) {
    page.meta.language = PragmaLanguage(*facts.content_language);
  }
  std::optional<url::Url> base;
  // Held to the same length limit as links: every relative link inherits it.
  if (facts.base_href && facts.base_href->size() <= options.max_url_bytes) {
    absl::StatusOr<url::Url> resolved = url::Url::Parse(TrimC0AndSpace(*facts.base_href), page_url);
    if (resolved.ok()) base = *std::move(resolved);
  }
  url::Url result = base ? *std::move(base) : page_url;
  page.meta.base_url = result.href();
  return result;
}

size_t LinkResolver::Add(LinkKind kind, std::string_view value, bool rel_nofollow) {
  SkippedLinks& skipped = page_.skipped;
  if (page_.links.size() >= options_.max_links) {
    ++skipped.over_limit;
    return kNoLink;
  }
  if (value.size() > options_.max_url_bytes) {
    ++skipped.too_long;
    return kNoLink;
  }
  const std::string_view trimmed = TrimC0AndSpace(value);
  if (trimmed.empty()) {
    ++skipped.empty;
    return kNoLink;
  }
  absl::StatusOr<url::Url> resolved = url::Url::Parse(trimmed, base_);
  if (!resolved.ok()) {
    std::string_view reason;
    if (resolved.status().code() != absl::StatusCode::kUnimplemented) {
      ++skipped.invalid;
      reason = "invalid";
    } else if (const std::string scheme = SchemeOf(trimmed); scheme == "javascript") {
      ++skipped.javascript;
      reason = "javascript";
    } else if (scheme == "mailto") {
      ++skipped.mailto;
      reason = "mailto";
    } else if (scheme == "data") {
      ++skipped.data;
      reason = "data";
    } else {
      ++skipped.other_scheme;
      reason = "other_scheme";
    }
    if (page_.unresolved.size() < options_.max_unresolved_kept) {
      page_.unresolved.push_back(UnresolvedRef{
          std::string(reason),
          std::string(trimmed.substr(0, std::min(trimmed.size(), options_.max_anchor_text_bytes)))});
    }
    return kNoLink;
  }
  if ((kind == LinkKind::kA || kind == LinkKind::kArea || kind == LinkKind::kScript) &&
      trimmed.front() == '#' &&
      resolved->href_without_fragment() == page_url_.href_without_fragment()) {
    ++skipped.same_document;
    return kNoLink;
  }
  resolved->ClearFragment();
  page_.links.push_back(Link{*std::move(resolved), kind, rel_nofollow || page_.meta.nofollow, ""});
  return page_.links.size() - 1;
}

void ScriptLinks::AddHandler(std::string_view code, bool rel_nofollow) {
  for (std::string& target : ScriptNavigationTargets(code)) {
    if (const auto it = index_.find(target); it != index_.end()) {
      targets_[it->second].rel_nofollow &= rel_nofollow;
    } else if (targets_.size() < max_targets_) {
      index_.emplace(target, targets_.size());
      targets_.push_back(Target{std::move(target), rel_nofollow});
    } else {
      over_limit_.insert(absl::Hash<std::string>()(target));
    }
  }
}

void ScriptLinks::AddHref(std::string_view href, bool rel_nofollow) {
  if (const std::optional<std::string> code = JavascriptUrlCode(href)) {
    AddHandler(*code, rel_nofollow);
  }
}

void ScriptLinks::ResolveInto(LinkResolver& links) {
  for (const Target& target : targets_) {
    links.Add(LinkKind::kScript, target.value, target.rel_nofollow);
  }
  links.CountOverLimit(over_limit_.size());
}

}  // namespace crawler::html::internal
