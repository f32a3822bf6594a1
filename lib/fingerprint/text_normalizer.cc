#include "lib/fingerprint/text_normalizer.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/strings/str_join.h"
#include "lib/encoding/utf8.h"

namespace crawler::fingerprint {
namespace {

using encoding::EncodeUtf8;

// Rule 8, lowercase, sorted by bytes so that it is easy to review and extend. English, German,
// French, Spanish and Russian month and weekday names and abbreviations, am/pm, time zone
// abbreviations, relative-time words and units. Some are also ordinary words ("may", "second",
// "mar", "tag"); dropping them from both visits of a page costs a little sensitivity and never
// causes a false change. The English article "an" is deliberately absent although it is French
// for "year".
constexpr auto kDateAndTimeWords = std::to_array<std::string_view>({
    "abril", "ago", "agosto", "am", "année", "années", "ans", "août", "apr", "april", "aug",
    "august", "avril", "ayer", "año", "años", "bst", "cdt", "cest", "cet", "cst", "day", "days",
    "dec", "december", "dezember", "diciembre", "dienstag", "dimanche", "domingo", "donnerstag",
    "décembre", "día", "días", "edt", "eest", "eet", "enero", "est", "feb", "febrero", "februar",
    "february", "freitag", "fri", "friday", "février", "gestern", "gmt", "heure", "heures", "heute",
    "hier", "hora", "horas", "hour", "hours", "hoy", "hr", "hrs", "jahr", "jahre", "jahren", "jan",
    "januar", "january", "janvier", "jeudi", "jour", "jours", "jueves", "juillet", "juin", "jul",
    "juli", "julio", "july", "jun", "june", "juni", "junio", "jänner", "lundi", "lunes", "mai",
    "mar", "march", "mardi", "mars", "martes", "marzo", "may", "mayo", "mdt", "mercredi", "mes",
    "meses", "min", "mins", "minute", "minuten", "minutes", "minuto", "minutos", "mittwoch",
    "miércoles", "mois", "mon", "monat", "monate", "monaten", "monday", "montag", "month", "months",
    "msk", "mst", "märz", "nov", "november", "novembre", "noviembre", "oct", "october", "octobre",
    "octubre", "oktober", "pdt", "pm", "pst", "samedi", "samstag", "sat", "saturday", "sec",
    "second", "seconds", "secs", "semaine", "semaines", "semana", "semanas", "sep", "sept",
    "september", "septembre", "septiembre", "setiembre", "sonnabend", "sonntag", "stunde",
    "stunden", "sun", "sunday", "sábado", "tag", "tage", "tagen", "thu", "thur", "thurs",
    "thursday", "today", "tonight", "tue", "tues", "tuesday", "uhr", "utc", "vendredi", "viernes",
    "wed", "wednesday", "week", "weeks", "woche", "wochen", "year", "years", "yesterday", "август",
    "августа", "апрель", "апреля", "воскресенье", "вторник", "вчера", "год", "года", "декабрь",
    "декабря", "день", "дней", "дня", "июль", "июля", "июнь", "июня", "лет", "май", "март", "марта",
    "мая", "месяц", "месяца", "месяцев", "минут", "минуту", "минуты", "назад", "недели", "недель",
    "неделю", "ноябрь", "ноября", "октябрь", "октября", "понедельник", "пятница", "пятницу",
    "сегодня", "секунд", "секунду", "секунды", "сентябрь", "сентября", "среда", "среду", "суббота",
    "субботу", "февраль", "февраля", "час", "часа", "часов", "четверг", "январь", "января",
});
static_assert(std::is_sorted(kDateAndTimeWords.begin(), kDateAndTimeWords.end()) &&
                  std::adjacent_find(kDateAndTimeWords.begin(), kDateAndTimeWords.end()) ==
                      kDateAndTimeWords.end(),
              "kDateAndTimeWords must stay sorted and free of duplicates");

// Every token is looked up, so the list is also laid out at compile time as an open-addressing
// hash table (FNV-1a, linear probing, load factor < 0.5): one hash and usually one comparison per
// token instead of a binary search's eight.
constexpr uint32_t Fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

constexpr size_t kDateWordTableSize = 512;
static_assert(kDateWordTableSize >= 2 * kDateAndTimeWords.size());

constexpr std::array<std::string_view, kDateWordTableSize> BuildDateWordTable() {
  std::array<std::string_view, kDateWordTableSize> table{};
  for (std::string_view word : kDateAndTimeWords) {
    size_t slot = Fnv1a(word) % kDateWordTableSize;
    while (!table[slot].empty()) slot = (slot + 1) % kDateWordTableSize;
    table[slot] = word;
  }
  return table;
}

constexpr std::array<std::string_view, kDateWordTableSize> kDateWordTable = BuildDateWordTable();

// The FNV-1a hash of each slot's word, 0 for an empty slot (no word hashes to 0), compared
// before the words: a probe for a token that is not in the list (nearly every token) touches
// only this 2 KiB array.
constexpr std::array<uint32_t, kDateWordTableSize> BuildDateWordHashes() {
  std::array<uint32_t, kDateWordTableSize> hashes{};
  for (size_t slot = 0; slot < kDateWordTableSize; ++slot) {
    if (!kDateWordTable[slot].empty()) hashes[slot] = Fnv1a(kDateWordTable[slot]);
  }
  return hashes;
}

constexpr std::array<uint32_t, kDateWordTableSize> kDateWordHashes = BuildDateWordHashes();
static_assert(std::none_of(kDateAndTimeWords.begin(), kDateAndTimeWords.end(),
                           [](std::string_view word) { return Fnv1a(word) == 0; }),
              "hash 0 marks an empty slot of kDateWordHashes");

// The longest word of the list, in bytes: longer tokens are rejected without hashing.
constexpr size_t kMaxDateWordBytes = [] {
  size_t longest = 0;
  for (std::string_view word : kDateAndTimeWords) longest = std::max(longest, word.size());
  return longest;
}();
static_assert(kMaxDateWordBytes < 32);

// A filter in front of the table: one bit per (length, low 5 bits of the first byte, low 5 bits
// of the last byte), set for the words of the list. Few ordinary words share all three with a
// date word, so most tokens are rejected with one load, without hashing.
constexpr size_t DateWordFilterBit(std::string_view token) {
  return token.size() << 10 | (static_cast<uint8_t>(token.front()) & 31u) << 5 |
         (static_cast<uint8_t>(token.back()) & 31u);
}

constexpr std::array<uint64_t, 32 * 1024 / 64> kDateWordFilter = [] {
  std::array<uint64_t, 32 * 1024 / 64> filter{};
  for (std::string_view word : kDateAndTimeWords) {
    const size_t bit = DateWordFilterBit(word);
    filter[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  return filter;
}();

// False if `token` is certainly not a date word; inlined into the tokeniser, so that most tokens
// are decided without a call.
inline bool MayBeDateWord(std::string_view token) {
  if (token.empty() || token.size() > kMaxDateWordBytes) return false;
  const size_t bit = DateWordFilterBit(token);
  return (kDateWordFilter[bit / 64] >> (bit % 64) & 1) != 0;
}

enum class CharClass {
  kSeparator,   // ends the current token
  kIgnorable,   // invisible, skipped without ending the token
  kWord,        // letter or combining mark
  kDigit,       // decimal digit: the token will be dropped (rule 5)
  kStandalone,  // CJK character: a token of its own (rule 4)
};

constexpr bool InRange(char32_t cp, char32_t lo, char32_t hi) { return cp >= lo && cp <= hi; }

constexpr CharClass Classify(char32_t cp) {
  if (cp < 0x80) {
    if (cp >= '0' && cp <= '9') return CharClass::kDigit;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return CharClass::kWord;
    return CharClass::kSeparator;
  }
  if (cp == 0xAD) return CharClass::kIgnorable;  // soft hyphen
  if (cp <= 0xBF || cp == 0xD7 || cp == 0xF7) return CharClass::kSeparator;
  if (InRange(cp, 0x0660, 0x0669) || InRange(cp, 0x06F0, 0x06F9) || InRange(cp, 0x0966, 0x096F) ||
      InRange(cp, 0x09E6, 0x09EF) || InRange(cp, 0xFF10, 0xFF19)) {
    return CharClass::kDigit;
  }
  if (cp == 0x200C || cp == 0x200D || cp == 0x2060 || cp == 0xFEFF || InRange(cp, 0xFE00, 0xFE0F) ||
      InRange(cp, 0xE0000, 0xE01EF)) {
    return CharClass::kIgnorable;
  }
  if (InRange(cp, 0x2000, 0x2BFF) || InRange(cp, 0x2E00, 0x2E7F) || InRange(cp, 0x3000, 0x303F) ||
      cp == 0x30FB || InRange(cp, 0xE000, 0xF8FF) || InRange(cp, 0xFE10, 0xFE1F) ||
      InRange(cp, 0xFE30, 0xFE6F) || InRange(cp, 0xFF00, 0xFF0F) || InRange(cp, 0xFF1A, 0xFF20) ||
      InRange(cp, 0xFF3B, 0xFF40) || InRange(cp, 0xFF5B, 0xFF65) || InRange(cp, 0xFFF0, 0xFFFF) ||
      InRange(cp, 0x1F000, 0x1FAFF) || cp >= 0xF0000) {
    return CharClass::kSeparator;
  }
  if (InRange(cp, 0x3040, 0x30FF) || InRange(cp, 0x31F0, 0x31FF) || InRange(cp, 0x3400, 0x4DBF) ||
      InRange(cp, 0x4E00, 0x9FFF) || InRange(cp, 0xF900, 0xFAFF) || InRange(cp, 0x20000, 0x3FFFF)) {
    return CharClass::kStandalone;
  }
  return CharClass::kWord;
}

// Classify for the ASCII range, which is most bytes of most pages: one load per byte.
constexpr std::array<CharClass, 128> kAsciiClass = [] {
  std::array<CharClass, 128> table{};
  for (char32_t cp = 0; cp < 128; ++cp) table[cp] = Classify(cp);
  return table;
}();

// Character flags of ASCII for the word loop (AppendAsciiWordRun), derived from Classify.
constexpr uint8_t kAsciiLetter = 1;
constexpr uint8_t kAsciiDigit = 2;
constexpr uint8_t kAsciiUpper = 4;
constexpr uint8_t kAsciiLower = 8;
static_assert(kAsciiLower >> 1 == kAsciiUpper && kAsciiUpper << 3 == 'a' - 'A');
constexpr std::array<uint8_t, 128> kAsciiFlags = [] {
  std::array<uint8_t, 128> table{};
  for (char32_t cp = 0; cp < 128; ++cp) {
    uint8_t flags = 0;
    if (Classify(cp) == CharClass::kWord) flags |= kAsciiLetter;
    if (Classify(cp) == CharClass::kDigit) flags |= kAsciiDigit;
    if (cp >= 'A' && cp <= 'Z') flags |= kAsciiUpper;
    if (cp >= 'a' && cp <= 'z') flags |= kAsciiLower;
    table[cp] = flags;
  }
  return table;
}();

// Rule 2: simple lowercase mapping (UnicodeData.txt field 13) for the scripts most of the web is
// written in. Unmapped code points are returned unchanged.
char32_t ToLower(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp < 0xC0) return cp;
  if (cp <= 0xDE) return cp == 0xD7 ? cp : cp + 32;  // Latin-1: À..Þ except ×
  if (cp < 0x100) return cp;
  if (cp <= 0x17F) {  // Latin Extended-A: mostly upper/lower pairs, with irregular stretches
    if (cp == 0x130) return 'i';    // İ
    if (cp == 0x178) return 0xFF;   // Ÿ -> ÿ
    if (cp == 0x131 || cp == 0x138 || cp == 0x149 || cp == 0x17F) return cp;  // no upper/lower pair
    if (cp <= 0x137 || InRange(cp, 0x14A, 0x177)) return (cp % 2 == 0) ? cp + 1 : cp;
    return (cp % 2 == 1) ? cp + 1 : cp;  // U+0139..U+0148 and U+0179..U+017E: odd is upper
  }
  if (InRange(cp, 0x391, 0x3AB) && cp != 0x3A2) return cp + 32;  // Greek capitals
  if (cp == 0x386) return 0x3AC;
  if (InRange(cp, 0x388, 0x38A)) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (cp == 0x38E || cp == 0x38F) return cp + 63;
  if (InRange(cp, 0x410, 0x42F)) return cp + 32;  // Cyrillic А..Я
  if (InRange(cp, 0x400, 0x40F)) return cp + 80;  // Ѐ..Џ
  return cp;
}

// The token being built, and what rules 5-7 need to know about it. A fixed buffer: a token is
// dropped once it outgrows kMaxTokenBytes, so nothing longer ever needs to be kept.
class TokenBuilder {
 public:
  void Append(char32_t cp, CharClass cls) {
    if (cls == CharClass::kDigit) has_digit_ = true;
    const bool upper = cp >= 'A' && cp <= 'Z';
    if (upper && previous_was_ascii_lower_) has_inner_upper_ = true;
    previous_was_ascii_lower_ = cp >= 'a' && cp <= 'z';
    ++chars_;
    if (size_ > kMaxTokenBytes) return;  // already too long (rule 7)
    if (cp < 0x80) {
      buffer_[size_++] = static_cast<char>(upper ? cp + 32 : cp);
    } else {
      size_ += EncodeUtf8(ToLower(cp), &buffer_[size_]);
    }
  }

  // Appends the run of ASCII letters and digits at [p, end), the same as Append byte by byte;
  // returns the end of the run. Most text is such runs, so this loop keeps its state in
  // registers, needs no decoding and tracks rules 5 and 6 with one table of character flags.
  const char* AppendAsciiWordRun(const char* p, const char* end) {
    size_t size = size_;
    uint8_t seen = 0;         // OR of the flags of the run's characters
    uint8_t inner_upper = 0;  // kAsciiUpper set once an upper-case letter follows a lower-case one
    uint8_t previous = previous_was_ascii_lower_ ? kAsciiLower : 0;
    const char* const start = p;
    for (; p < end; ++p) {
      const auto c = static_cast<uint8_t>(*p);
      if (c >= 0x80) break;
      const uint8_t flags = kAsciiFlags[c];
      if ((flags & (kAsciiLetter | kAsciiDigit)) == 0) break;
      seen |= flags;
      inner_upper |= (previous >> 1) & flags;  // kAsciiLower >> 1 == kAsciiUpper
      previous = flags;
      // Upper-case letters become lower case: + 32, which is kAsciiUpper << 3.
      if (size <= kMaxTokenBytes) {
        buffer_[size++] = static_cast<char>(c + ((flags & kAsciiUpper) << 3));
      }
    }
    size_ = size;
    chars_ += static_cast<size_t>(p - start);
    has_digit_ |= (seen & kAsciiDigit) != 0;
    has_inner_upper_ |= (inner_upper & kAsciiUpper) != 0;
    if (p != start) previous_was_ascii_lower_ = (previous & kAsciiLower) != 0;
    return p;
  }

  // Emits the token unless a rule drops it, and starts a new one.
  void Flush(absl::FunctionRef<void(std::string_view)> emit) {
    if (size_ == 0) return;  // nothing appended since the last flush: all state is reset
    const std::string_view token(buffer_.data(), size_);
    if (!token.empty() && !has_digit_ && token.size() <= kMaxTokenBytes &&
        !(chars_ >= kMinIdentifierChars && has_inner_upper_) &&
        !(MayBeDateWord(token) && IsDateOrTimeWord(token))) {
      emit(token);
    }
    size_ = 0;
    chars_ = 0;
    has_digit_ = false;
    has_inner_upper_ = false;
    previous_was_ascii_lower_ = false;
  }

 private:
  // kMaxTokenBytes + 1 bytes mark "too long"; one more code point of up to 4 bytes may follow.
  std::array<char, kMaxTokenBytes + 1 + 4> buffer_;
  size_t size_ = 0;
  size_t chars_ = 0;
  bool has_digit_ = false;
  bool has_inner_upper_ = false;
  bool previous_was_ascii_lower_ = false;
};

}  // namespace

bool IsDateOrTimeWord(std::string_view token) {
  if (!MayBeDateWord(token)) return false;
  const uint32_t hash = Fnv1a(token);
  for (size_t slot = hash % kDateWordTableSize; kDateWordHashes[slot] != 0;
       slot = (slot + 1) % kDateWordTableSize) {
    if (kDateWordHashes[slot] == hash && kDateWordTable[slot] == token) return true;
  }
  return false;
}

std::span<const std::string_view> DateAndTimeWords() { return kDateAndTimeWords; }

void ForEachFingerprintToken(std::string_view text,
                             absl::FunctionRef<void(std::string_view token)> emit) {
  TokenBuilder token;
  std::array<char, 4> standalone;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto byte = static_cast<uint8_t>(text[pos]);
    if (byte < 0x80) {  // ASCII: no decoding; never ignorable or standalone
      if (kAsciiClass[byte] == CharClass::kSeparator) {
        token.Flush(emit);
        ++pos;
      } else {
        pos = token.AppendAsciiWordRun(text.data() + pos, text.data() + text.size()) - text.data();
      }
      continue;
    }
    // Strict decoding (RFC 3629); an invalid byte is a separator and decoding resynchronises on
    // the next byte.
    const encoding::Utf8Sequence sequence = encoding::DecodeUtf8Sequence(text.substr(pos));
    const char32_t cp = sequence.code_point;
    pos += sequence.valid ? sequence.length : 1;
    const CharClass cls = sequence.valid ? Classify(cp) : CharClass::kSeparator;
    switch (cls) {
      case CharClass::kIgnorable:
        break;
      case CharClass::kSeparator:
        token.Flush(emit);
        break;
      case CharClass::kStandalone:
        token.Flush(emit);
        emit(std::string_view(standalone.data(), EncodeUtf8(cp, standalone.data())));
        break;
      case CharClass::kWord:
      case CharClass::kDigit:
        token.Append(cp, cls);
        break;
    }
  }
  token.Flush(emit);
}

std::vector<std::string> FingerprintTokens(std::string_view text) {
  std::vector<std::string> tokens;
  ForEachFingerprintToken(text, [&](std::string_view t) { tokens.emplace_back(t); });
  return tokens;
}

std::string NormalizeForFingerprint(std::string_view text) {
  return absl::StrJoin(FingerprintTokens(text), " ");
}

}  // namespace crawler::fingerprint
