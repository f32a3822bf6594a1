// A frozen copy of lib/fingerprint/change_digest.cc's normalisation as it was before it was
// optimised (words as views into one lowered copy, hashed word lists, no allocation per word):
// the plain implementation the library's NormalizeForChangeDigest is compared with on random
// input (change_digest_test). Change digests are stored with every page's re-visit state, so
// any difference is a bug in the library, not in this copy.
#include "tests/unit/fingerprint/reference_change_digest.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/fingerprint/reference_text_normalizer.h"

namespace crawler::fingerprint::reference {
namespace {

constexpr std::string_view kMonthsAndDays[] = {
    // English, with the usual abbreviations.
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
    // German, French, Spanish months (the ones that differ from English).
    "januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "janvier",
    "février", "mars", "avril", "juin", "juillet", "août", "septembre", "octobre", "novembre",
    "décembre", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
    "septiembre", "octubre", "noviembre", "diciembre"};

constexpr std::string_view kCounterWords[] = {
    "views",   "view",     "viewed",  "viewers", "visits",    "visitor", "visitors",
    "readers", "hits",     "reads",   "likes",   "shares",    "comments", "replies",
    "downloads", "clicks", "times"};

// Rule 5, compared with the block's first word (lowercased, end punctuation removed).
constexpr std::string_view kAdLabels[] = {"advertisement", "advertisements", "advert",
                                          "sponsored",     "anzeige",        "werbung",
                                          "publicité",     "publicidad",     "reklama"};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

bool In(std::string_view word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

template <size_t N>
bool In(std::string_view word, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

// Digits with '.' or ',' between them ("12", "12,345", "1.5"), or an ordinal ("5th").
bool IsNumber(std::string_view w) {
  if (w.empty() || !IsDigit(w.front())) return false;
  size_t i = 0;
  while (i < w.size() && (IsDigit(w[i]) || ((w[i] == '.' || w[i] == ',') && i + 1 < w.size() &&
                                            IsDigit(w[i + 1])))) {
    ++i;
  }
  const std::string_view rest = w.substr(i);
  return rest.empty() || In(rest, {"st", "nd", "rd", "th", "k", "m"});
}

// A number that could be a day or a year: at most 4 digits, maybe an ordinal suffix.
bool IsDayOrYear(std::string_view w) {
  size_t digits = 0;
  while (digits < w.size() && IsDigit(w[digits])) ++digits;
  if (digits == 0 || digits > 4) return false;
  const std::string_view rest = w.substr(digits);
  return rest.empty() || In(rest, {"st", "nd", "rd", "th"});
}

// Groups of digits separated by `separators`: the group count and the digit counts.
bool DigitGroups(std::string_view w, std::string_view separators, std::vector<size_t>& groups) {
  groups.assign(1, 0);
  for (char c : w) {
    if (IsDigit(c)) {
      ++groups.back();
    } else if (separators.find(c) != std::string_view::npos && groups.back() > 0) {
      groups.push_back(0);
    } else {
      return false;
    }
  }
  return groups.back() > 0;
}

// 10:42, 10:42:07, 10:42:07.123, 9:05pm.
bool IsClockTime(std::string_view w) {
  if (w.size() > 2 && (w.ends_with("am") || w.ends_with("pm"))) w.remove_suffix(2);
  if (const size_t dot = w.rfind('.'); dot != std::string_view::npos && dot + 1 < w.size() &&
                                       w.find(':') < dot &&
                                       std::all_of(w.begin() + dot + 1, w.end(), IsDigit)) {
    w = w.substr(0, dot);  // fractional seconds
  }
  std::vector<size_t> groups;
  if (!DigitGroups(w, ":", groups) || groups.size() < 2 || groups.size() > 3) return false;
  return groups[0] <= 2 && std::all_of(groups.begin() + 1, groups.end(),
                                       [](size_t g) { return g == 2; });
}

// 2025-03-05, 05.03.2025, 3/5/25, and ISO 8601 date-times (2025-03-05T10:42:07Z).
bool IsNumericDate(std::string_view w) {
  if (const size_t t = w.find('t'); t == 10 && w.size() > 10) w = w.substr(0, 10);
  std::vector<size_t> groups;
  if (!DigitGroups(w, "-./", groups) || groups.size() != 3) return false;
  const bool year_first = groups[0] == 4 && groups[1] <= 2 && groups[2] <= 2;
  const bool year_last = groups[0] <= 2 && groups[1] <= 2 && (groups[2] == 2 || groups[2] == 4);
  return year_first || year_last;
}

// Rule 1 on one block (a line): its words, lowercased, end punctuation removed.
void AppendWords(std::string_view block, std::vector<std::string>& words) {
  size_t i = 0;
  while (i < block.size()) {
    while (i < block.size() && (block[i] == ' ' || block[i] == '\t')) ++i;
    size_t end = i;
    while (end < block.size() && block[end] != ' ' && block[end] != '\t') ++end;
    std::string_view word = block.substr(i, end - i);
    i = end;
    while (!word.empty() && IsAsciiPunct(word.front())) word.remove_prefix(1);
    while (!word.empty() && IsAsciiPunct(word.back())) word.remove_suffix(1);
    if (word.empty()) continue;
    std::string lower(word);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    words.push_back(std::move(lower));
  }
}

// Rule 5: "Sponsored: ..." or "Ad: ..." (the short label only with its colon).
bool IsAdBlock(std::string_view block) {
  const size_t start = block.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  block.remove_prefix(start);
  std::vector<std::string> first;
  AppendWords(block.substr(0, block.find_first_of(" \t")), first);
  if (first.empty()) return false;
  if (first[0] == "ad") return block.size() > 2 && block[2] == ':';
  return In(first[0], kAdLabels);
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view block = text.substr(begin, end - begin);
    if (!IsAdBlock(block)) AppendWords(block, words);
    begin = end + 1;
  }
  return words;
}

std::vector<std::string> NormalizedWords(std::string_view text) {
  std::vector<std::string> words = Words(text);
  const size_t n = words.size();
  std::vector<bool> drop(n, false);
  for (size_t i = 0; i < n; ++i) {
    const std::string& w = words[i];
    if (IsClockTime(w) || IsNumericDate(w) || IsDateOrTimeWord(w)) drop[i] = true;
    if (In(w, kMonthsAndDays)) {
      // The day and year around a month or weekday name.
      for (size_t j = i >= 2 ? i - 2 : 0; j <= std::min(n - 1, i + 2); ++j) {
        if (IsDayOrYear(words[j])) drop[j] = true;
      }
    }
    if (w == "ago" && i >= 2 && IsNumber(words[i - 2])) drop[i - 2] = true;  // 5 minutes ago
    if (In(w, kCounterWords)) {
      // "12 views", "views: 12", "visitor number 12", "visitor no. 12".
      if (i > 0 && IsNumber(words[i - 1])) drop[i - 1] = true;
      if (i + 1 < n && IsNumber(words[i + 1])) drop[i + 1] = true;
      if (i + 2 < n && In(words[i + 1], {"number", "no", "nr", "#"}) && IsNumber(words[i + 2])) {
        drop[i + 2] = true;
      }
    }
  }
  std::vector<std::string> kept;
  kept.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!drop[i]) kept.push_back(std::move(words[i]));
  }
  return kept;
}

}  // namespace

std::string NormalizeForChangeDigest(std::string_view main_text) {
  std::string out;
  for (const std::string& word : NormalizedWords(main_text)) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

}  // namespace crawler::fingerprint::reference
