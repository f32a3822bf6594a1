#include "lib/fingerprint/change_digest.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
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

// What rules 2-5 need to know of a word, found once per word: bits, since a word may be in
// several lists ("march" is a date word and a month name).
constexpr uint8_t kDroppedAlone = 1;  // rule 2's clock times and dates, rule 3's date words
constexpr uint8_t kNumber = 2;        // IsNumber
constexpr uint8_t kDayOrYear = 4;     // IsDayOrYear
constexpr uint8_t kMonthOrDay = 8;    // a month or weekday name (kMonthsAndDays)
constexpr uint8_t kCounter = 16;      // a counter word (kCounterWords)
constexpr uint8_t kAgo = 32;          // "ago"
constexpr uint8_t kNumberLabel = 64;  // "number", "no", "nr" (a lone "#" never is a word)
constexpr uint8_t kAdLabel = 128;     // rule 5's labels (kAdLabels)

// Every listed word with its kinds. Most words of a text are in no list: a filter of one bit per
// (length, low 5 bits of the first byte, low 5 bits of the last byte) turns nearly all of them
// away with one load, before any hashing.
class ListedWords {
 public:
  ListedWords() {
    for (std::string_view w : DateAndTimeWords()) Add(w, kDroppedAlone);
    for (std::string_view w : kMonthsAndDays) Add(w, kMonthOrDay);
    for (std::string_view w : kCounterWords) Add(w, kCounter);
    for (std::string_view w : kAdLabels) Add(w, kAdLabel);
    Add("ago", kAgo);
    for (std::string_view w : {"number", "no", "nr"}) Add(w, kNumberLabel);
  }

  // The kinds of a (lowercased) word that is in a list; 0 for any other.
  // Inlined into the word loop: the filter decides most words without a call.
  uint8_t KindsOf(std::string_view word) const {
    if (word.empty() || word.size() > kMaxBytes) return 0;
    const size_t bit = FilterBit(word);
    if ((filter_[bit / 64] >> (bit % 64) & 1) == 0) return 0;
    return Lookup(word);
  }

 private:
  // Every listed word is shorter (the longest, Russian "воскресенье", has 22 bytes).
  static constexpr size_t kMaxBytes = 31;

  uint8_t Lookup(std::string_view word) const {
    const auto it = kinds_.find(word);
    return it == kinds_.end() ? 0 : it->second;
  }

  static size_t FilterBit(std::string_view word) {
    return word.size() << 10 | (static_cast<uint8_t>(word.front()) & 31u) << 5 |
           (static_cast<uint8_t>(word.back()) & 31u);
  }

  void Add(std::string_view word, uint8_t kind) {
    if (word.empty() || word.size() > kMaxBytes) std::abort();
    kinds_[word] |= kind;
    const size_t bit = FilterBit(word);
    filter_[bit / 64] |= uint64_t{1} << (bit % 64);
  }

  absl::flat_hash_map<std::string_view, uint8_t> kinds_;
  std::array<uint64_t, (kMaxBytes + 1) * 1024 / 64> filter_{};
};

const ListedWords& Listed() {
  static const ListedWords* const listed = new ListedWords();
  return *listed;
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

// Rule 1's word stripped of the ASCII punctuation at either end.
std::string_view StripEndPunctuation(std::string_view word) {
  while (!word.empty() && IsAsciiPunct(word.front())) word.remove_prefix(1);
  while (!word.empty() && IsAsciiPunct(word.back())) word.remove_suffix(1);
  return word;
}

// Rule 5: "Sponsored: ..." or "Ad: ..." (the short label only with its colon), on a lowercased
// block.
bool IsAdBlock(std::string_view block, const ListedWords& listed) {
  const size_t start = block.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  block.remove_prefix(start);
  const std::string_view first = StripEndPunctuation(block.substr(0, block.find_first_of(" \t")));
  if (first.empty()) return false;
  if (first == "ad") return block.size() > 2 && block[2] == ':';
  return (listed.KindsOf(first) & kAdLabel) != 0;
}

// The normalisation in one pass, in place. The text is lowercased into the caller's buffer; its
// words are classified as they are found and wait in a ring of the last kWindow words, since
// rules 3 and 4 decide a word from up to two words on either side. A word leaves the ring once
// every word that could drop it has been seen, and its text, when kept, is written back into the
// buffer at the normalised text's end, which never passes the word's own end in the buffer: so
// the words still waiting are never overwritten, and the normalised text needs no memory of its
// own and no second pass.
class InPlaceNormalizer {
 public:
  InPlaceNormalizer(std::string& buffer, const ListedWords& listed)
      : buffer_(buffer.data()), listed_(listed) {}

  // Adds the next word, a view into the buffer (after every word added before it).
  void Add(std::string_view text) {
    Word& word = ring_[count_ % kWindow];
    word = {text, Classify(text), false};
    if (word.kind & kDroppedAlone) word.drop = true;
    ++count_;
    // The word two before this one has both its neighbours on either side now; the one four
    // before can no longer be dropped by anything.
    if (count_ >= 3) Decide(count_ - 3);
    if (count_ >= 5) Emit(count_ - 5);
  }

  // Decides and writes out the last words; returns the normalised text's size.
  size_t Finish() {
    for (size_t i = count_ >= 2 ? count_ - 2 : 0; i < count_; ++i) Decide(i);
    for (size_t i = count_ >= 4 ? count_ - 4 : 0; i < count_; ++i) Emit(i);
    return size_;
  }

 private:
  // Rules 3 and 4 look two words ahead and behind; a power of two above 2 * 2 + 1.
  static constexpr size_t kWindow = 8;

  struct Word {
    std::string_view text;
    uint8_t kind;
    bool drop;
  };

  uint8_t Classify(std::string_view w) const {
    if (IsDigit(w.front())) {
      // No month, weekday, counter, label or date word starts with a digit.
      uint8_t kind = 0;
      if (IsClockTime(w) || IsNumericDate(w)) kind |= kDroppedAlone;
      if (IsNumber(w)) kind |= kNumber;
      if (IsDayOrYear(w)) kind |= kDayOrYear;
      return kind;
    }
    return listed_.KindsOf(w);
  }

  Word& At(size_t i) { return ring_[i % kWindow]; }

  // Rules 3 and 4 for the word at index i: the words it drops around it, of those that exist.
  void Decide(size_t i) {
    const uint8_t kind = At(i).kind;
    if ((kind & (kMonthOrDay | kAgo | kCounter)) == 0) return;
    const size_t last = count_ - 1;
    if (kind & kMonthOrDay) {
      // The day and year around a month or weekday name.
      for (size_t j = i >= 2 ? i - 2 : 0; j <= std::min(last, i + 2); ++j) {
        if (At(j).kind & kDayOrYear) At(j).drop = true;
      }
    }
    if ((kind & kAgo) && i >= 2 && (At(i - 2).kind & kNumber)) At(i - 2).drop = true;
    if (kind & kCounter) {
      // "12 views", "views: 12", "visitor number 12", "visitor no. 12".
      if (i > 0 && (At(i - 1).kind & kNumber)) At(i - 1).drop = true;
      if (i + 1 <= last && (At(i + 1).kind & kNumber)) At(i + 1).drop = true;
      if (i + 2 <= last && (At(i + 1).kind & kNumberLabel) && (At(i + 2).kind & kNumber)) {
        At(i + 2).drop = true;
      }
    }
  }

  void Emit(size_t i) {
    const Word& word = At(i);
    if (word.drop) return;
    if (size_ != 0) buffer_[size_++] = ' ';
    std::memmove(buffer_ + size_, word.text.data(), word.text.size());
    size_ += word.text.size();
  }

  char* buffer_;
  size_t size_ = 0;  // of the normalised text written so far
  size_t count_ = 0;  // words added
  std::array<Word, kWindow> ring_;
  const ListedWords& listed_;
};

// Rule 1's lowercasing: ASCII letters only, eight bytes at a time. `out` holds text.size() bytes.
void LowercaseAscii(std::string_view text, char* out) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, text.data() + i, 8);
    // Per byte, on its low 7 bits (no carry crosses into the next byte): the high bit of
    // `from_a` is set from 'A' up, that of `past_z` from '[' up; ~x keeps ASCII bytes only.
    const uint64_t low7 = x & (kOnes * 0x7F);
    const uint64_t from_a = low7 + kOnes * (0x80 - 'A');
    const uint64_t past_z = low7 + kOnes * (0x80 - 'Z' - 1);
    const uint64_t upper = from_a & ~past_z & ~x & (kOnes * 0x80);
    x |= upper >> 2;  // 0x20: upper-case ASCII letters have it clear, lower-case ones set
    std::memcpy(out + i, &x, 8);
  }
  for (; i < text.size(); ++i) {
    const char c = text[i];
    out[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
}

// Normalises `main_text` into `buffer` (resized to hold it); returns the normalised text's size.
size_t Normalize(std::string_view main_text, std::string& buffer) {
  // Rule 1 lowercases ASCII letters only; doing it once for the whole text leaves every word as
  // it would be lowercased alone (punctuation, which is stripped, has no case).
  buffer.resize(main_text.size());
  LowercaseAscii(main_text, buffer.data());
  const ListedWords& listed = Listed();
  InPlaceNormalizer normalizer(buffer, listed);
  const std::string_view lowered(buffer);
  size_t begin = 0;
  while (begin <= lowered.size()) {
    size_t end = lowered.find('\n', begin);
    if (end == std::string_view::npos) end = lowered.size();
    const std::string_view block = lowered.substr(begin, end - begin);
    if (!IsAdBlock(block, listed)) {
      // Rule 1's words: split at spaces and tabs, end punctuation removed.
      const char* p = block.data();
      const char* const block_end = p + block.size();
      while (p < block_end) {
        while (p < block_end && (*p == ' ' || *p == '\t')) ++p;
        const char* word_end = p;
        while (word_end < block_end && *word_end != ' ' && *word_end != '\t') ++word_end;
        const std::string_view word = StripEndPunctuation(std::string_view(p, word_end - p));
        p = word_end;
        if (!word.empty()) normalizer.Add(word);
      }
    }
    begin = end + 1;
  }
  return normalizer.Finish();
}

}  // namespace

std::string NormalizeForChangeDigest(std::string_view main_text) {
  std::string buffer;
  buffer.resize(Normalize(main_text, buffer));
  return buffer;
}

std::optional<ChangeDigest> ComputeChangeDigest(std::string_view main_text) {
  std::string buffer;
  const size_t size = Normalize(main_text, buffer);
  if (size == 0) return std::nullopt;
  const uint64_t bits = XXH3_64bits(buffer.data(), size);
  return ChangeDigest(bits == 0 ? 1 : bits);
}

}  // namespace crawler::fingerprint
