#include "lib/html/internal/boilerplate.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "lib/encoding/ascii.h"

namespace crawler::html::internal {
namespace {

using encoding::EqualsIgnoreCase;

// Words of class and id values that name furniture. Chosen from the class names of common CMS
// themes and readability's "unlikely candidates"; each must be a whole word of the value, so
// short ones ("ad") do not match inside longer words. Not "comment": syntax highlighters mark
// code comments with it, and those are content. Lowercase.
constexpr std::string_view kFurnitureWords[] = {
    "ad",          "ads",        "adsense",   "advert",     "advertisement", "advertising",
    "banner",      "breadcrumb", "breadcrumbs", "byline",   "comments",      "cookie",
    "cookies",     "counter",    "dateline",  "disqus",     "masthead",      "menu",
    "meta",        "nav",        "navbar",    "navigation", "newsletter",    "pager",
    "pagination",  "popup",      "promo",     "related",    "share",         "sharing",
    "sidebar",     "skyscraper", "social",    "sponsor",    "sponsored",     "toolbar",
    "widget",
};

constexpr size_t kLongestFurnitureWord =
    std::max_element(std::begin(kFurnitureWords), std::end(kFurnitureWords),
                     [](std::string_view a, std::string_view b) { return a.size() < b.size(); })
        ->size();

constexpr std::string_view kFurnitureRoles[] = {
    "navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar",
};

bool IsSeparator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '-' || c == '_';
}

// For each length, a bit per letter a-z that starts a furniture word of that length.
constexpr std::array<uint32_t, kLongestFurnitureWord + 1> kFurnitureStarts = [] {
  std::array<uint32_t, kLongestFurnitureWord + 1> starts{};
  for (std::string_view w : kFurnitureWords) starts[w.size()] |= uint32_t{1} << (w[0] - 'a');
  return starts;
}();

// True if `word` is one of kFurnitureWords, in any case. Pages repeat class words by the
// thousand (code listings mark every token): the length and first letter turn away nearly all
// of them before any comparison.
bool IsFurnitureWord(std::string_view word) {
  if (word.empty() || word.size() > kLongestFurnitureWord) return false;
  const char first = encoding::ToAsciiLower(word[0]);
  if (first < 'a' || first > 'z' ||
      (kFurnitureStarts[word.size()] & (uint32_t{1} << (first - 'a'))) == 0) {
    return false;
  }
  return std::any_of(std::begin(kFurnitureWords), std::end(kFurnitureWords),
                     [&](std::string_view w) { return EqualsIgnoreCase(word, w); });
}

// True if a word of `value` (split at whitespace, '-' and '_') is a furniture word.
bool HasFurnitureWord(std::string_view value) {
  size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && IsSeparator(value[i])) ++i;
    size_t end = i;
    while (end < value.size() && !IsSeparator(value[end])) ++end;
    if (IsFurnitureWord(value.substr(i, end - i))) return true;
    i = end;
  }
  return false;
}

}  // namespace

bool IsContentSection(GumboTag tag) {
  return tag == GUMBO_TAG_ARTICLE || tag == GUMBO_TAG_MAIN || tag == GUMBO_TAG_SECTION;
}

bool IsFurniture(GumboTag tag, const FurnitureAttributes& attributes, bool in_content_section) {
  switch (tag) {
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_MENU:
      return true;
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
      if (!in_content_section) return true;
      break;
    default:
      break;
  }
  // A role is a list of tokens of which the first one the user agent knows applies; every
  // role of interest is known, so the first token decides.
  if (attributes.role) {
    std::string_view role = *attributes.role;
    const size_t start = role.find_first_not_of(" \t\n\f\r");
    role = start == std::string_view::npos ? std::string_view() : role.substr(start);
    role = role.substr(0, role.find_first_of(" \t\n\f\r"));
    if (std::any_of(std::begin(kFurnitureRoles), std::end(kFurnitureRoles),
                    [&](std::string_view r) { return EqualsIgnoreCase(role, r); })) {
      return true;
    }
  }
  return (attributes.class_list && HasFurnitureWord(*attributes.class_list)) ||
         (attributes.id && HasFurnitureWord(*attributes.id));
}

}  // namespace crawler::html::internal
