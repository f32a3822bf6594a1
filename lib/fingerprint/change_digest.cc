#include "lib/fingerprint/change_digest.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "lib/fingerprint/text_normalizer.h"

namespace crawler::fingerprint {
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

// A word list as a hash set: one probe per word instead of a comparison per entry. Most words
// of a text are in no list, and a probe hashes the word: a filter on (first byte, length) and
// (last byte, length) turns nearly all of them away first, with two table reads.
class WordSet {
 public:
  template <size_t N>
  explicit WordSet(const std::string_view (&list)[N]) : words_(std::begin(list), std::end(list)) {
    for (std::string_view w : list) {
      // Every list word is short (the longest, "septiembre", has 10 bytes).
      if (w.empty() || w.size() > kMaxBytes) std::abort();
      first_[Byte(w.front())] |= LengthBit(w.size());
      last_[Byte(w.back())] |= LengthBit(w.size());
    }
  }
  bool contains(std::string_view word) const {
    if (word.empty() || word.size() > kMaxBytes) return false;
    if ((first_[Byte(word.front())] & last_[Byte(word.back())] & LengthBit(word.size())) == 0) {
      return false;
    }
    return words_.contains(word);
  }

 private:
  static constexpr size_t kMaxBytes = 15;
  static uint8_t Byte(char c) { return static_cast<uint8_t>(c); }
  static uint16_t LengthBit(size_t bytes) { return static_cast<uint16_t>(1u << bytes); }

  absl::flat_hash_set<std::string_view> words_;
  // Bit n of first_[b] (last_[b]): some word of n bytes begins (ends) with byte b.
  std::array<uint16_t, 256> first_{};
  std::array<uint16_t, 256> last_{};
};

const WordSet& MonthsAndDays() {
  static const WordSet* const set = new WordSet(kMonthsAndDays);
  return *set;
}
const WordSet& CounterWords() {
  static const WordSet* const set = new WordSet(kCounterWords);
  return *set;
}
const WordSet& AdLabels() {
  static const WordSet* const set = new WordSet(kAdLabels);
  return *set;
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

// Groups of digits separated by `separators`, counted: the digit count of each of the first
// kMaxGroups groups; `count` past kMaxGroups means more (no caller wants more than 3).
struct DigitGroups {
  static constexpr size_t kMaxGroups = 4;
  std::array<size_t, kMaxGroups> digits{};
  size_t count = 0;

  // False unless `w` is digit groups separated by single separators, ending in a digit.
  bool Parse(std::string_view w, std::string_view separators) {
    count = 1;
    digits[0] = 0;
    size_t last = 0;  // digits in the group being read
    for (char c : w) {
      if (IsDigit(c)) {
        ++last;
      } else if (separators.find(c) != std::string_view::npos && last > 0) {
        if (count <= kMaxGroups) digits[count - 1] = last;
        ++count;
        last = 0;
      } else {
        return false;
      }
    }
    if (count <= kMaxGroups) digits[count - 1] = last;
    return last > 0;
  }
};

// 10:42, 10:42:07, 10:42:07.123, 9:05pm.
bool IsClockTime(std::string_view w) {
  if (w.empty() || !IsDigit(w.front())) return false;
  if (w.size() > 2 && (w.ends_with("am") || w.ends_with("pm"))) w.remove_suffix(2);
  if (const size_t dot = w.rfind('.'); dot != std::string_view::npos && dot + 1 < w.size() &&
                                       w.find(':') < dot &&
                                       std::all_of(w.begin() + dot + 1, w.end(), IsDigit)) {
    w = w.substr(0, dot);  // fractional seconds
  }
  DigitGroups groups;
  if (!groups.Parse(w, ":") || groups.count < 2 || groups.count > 3) return false;
  return groups.digits[0] <= 2 && groups.digits[1] == 2 &&
         (groups.count == 2 || groups.digits[2] == 2);
}

// 2025-03-05, 05.03.2025, 3/5/25, and ISO 8601 date-times (2025-03-05T10:42:07Z).
bool IsNumericDate(std::string_view w) {
  if (w.empty() || !IsDigit(w.front())) return false;
  if (const size_t t = w.find('t'); t == 10 && w.size() > 10) w = w.substr(0, 10);
  DigitGroups groups;
  if (!groups.Parse(w, "-./") || groups.count != 3) return false;
  const size_t* g = groups.digits.data();
  const bool year_first = g[0] == 4 && g[1] <= 2 && g[2] <= 2;
  const bool year_last = g[0] <= 2 && g[1] <= 2 && (g[2] == 2 || g[2] == 4);
  return year_first || year_last;
}

// Rule 1 on one block (a line of the ASCII-lowercased text): its words, end punctuation removed,
// as views into the block.
void AppendWords(std::string_view block, std::vector<std::string_view>& words) {
  size_t i = 0;
  while (i < block.size()) {
    while (i < block.size() && (block[i] == ' ' || block[i] == '\t')) ++i;
    size_t end = i;
    while (end < block.size() && block[end] != ' ' && block[end] != '\t') ++end;
    std::string_view word = block.substr(i, end - i);
    i = end;
    while (!word.empty() && IsAsciiPunct(word.front())) word.remove_prefix(1);
    while (!word.empty() && IsAsciiPunct(word.back())) word.remove_suffix(1);
    if (!word.empty()) words.push_back(word);
  }
}

// Rule 5: "Sponsored: ..." or "Ad: ..." (the short label only with its colon), on a lowercased
// block.
bool IsAdBlock(std::string_view block) {
  const size_t start = block.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  block.remove_prefix(start);
  std::string_view first = block.substr(0, block.find_first_of(" \t"));
  while (!first.empty() && IsAsciiPunct(first.front())) first.remove_prefix(1);
  while (!first.empty() && IsAsciiPunct(first.back())) first.remove_suffix(1);
  if (first.empty()) return false;
  if (first == "ad") return block.size() > 2 && block[2] == ':';
  return AdLabels().contains(first);
}

// The words of every block that is not an ad, as views into `lowered`.
std::vector<std::string_view> Words(std::string_view lowered) {
  std::vector<std::string_view> words;
  size_t begin = 0;
  while (begin <= lowered.size()) {
    size_t end = lowered.find('\n', begin);
    if (end == std::string_view::npos) end = lowered.size();
    const std::string_view block = lowered.substr(begin, end - begin);
    if (!IsAdBlock(block)) AppendWords(block, words);
    begin = end + 1;
  }
  return words;
}

}  // namespace

std::string NormalizeForChangeDigest(std::string_view main_text) {
  // Rule 1 lowercases ASCII letters only; doing it once for the whole text leaves every word as
  // it would be lowercased alone (punctuation, which is stripped, has no case).
  std::string lowered(main_text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const std::vector<std::string_view> words = Words(lowered);
  const size_t n = words.size();
  std::vector<bool> drop(n, false);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view w = words[i];
    if (IsClockTime(w) || IsNumericDate(w) || IsDateOrTimeWord(w)) drop[i] = true;
    if (MonthsAndDays().contains(w)) {
      // The day and year around a month or weekday name.
      for (size_t j = i >= 2 ? i - 2 : 0; j <= std::min(n - 1, i + 2); ++j) {
        if (IsDayOrYear(words[j])) drop[j] = true;
      }
    }
    if (w == "ago" && i >= 2 && IsNumber(words[i - 2])) drop[i - 2] = true;  // 5 minutes ago
    if (CounterWords().contains(w)) {
      // "12 views", "views: 12", "visitor number 12", "visitor no. 12".
      if (i > 0 && IsNumber(words[i - 1])) drop[i - 1] = true;
      if (i + 1 < n && IsNumber(words[i + 1])) drop[i + 1] = true;
      if (i + 2 < n && In(words[i + 1], {"number", "no", "nr", "#"}) && IsNumber(words[i + 2])) {
        drop[i + 2] = true;
      }
    }
  }
  std::string out;
  out.reserve(lowered.size());
  for (size_t i = 0; i < n; ++i) {
    if (drop[i]) continue;
    if (!out.empty()) out += ' ';
    out += words[i];
  }
  return out;
}

std::optional<ChangeDigest> ComputeChangeDigest(std::string_view main_text) {
  const std::string normalized = NormalizeForChangeDigest(main_text);
  if (normalized.empty()) return std::nullopt;
  const uint64_t bits = XXH3_64bits(normalized.data(), normalized.size());
  return ChangeDigest(bits == 0 ? 1 : bits);
}

}  // namespace crawler::fingerprint
