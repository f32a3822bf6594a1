// A frozen copy of lib/fingerprint/text_normalizer.cc as it was at kFingerprintVersion 1, before
// its ASCII fast path and date-word probe were optimised: the plain implementation the library's
// tokens are compared with on random input (text_normalizer_test, simhash_test). Fingerprints
// are an on-disk contract, so any difference is a bug in the library, not in this copy.
#include "tests/unit/fingerprint/reference_text_normalizer.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace crawler::fingerprint::reference {
namespace {

// text_normalizer.h's constants of version 1.
constexpr size_t kMinIdentifierChars = 16;
constexpr size_t kMaxTokenBytes = 64;

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

enum class CharClass {
  kSeparator,   // ends the current token
  kIgnorable,   // invisible, skipped without ending the token
  kWord,        // letter or combining mark
  kDigit,       // decimal digit: the token will be dropped (rule 5)
  kStandalone,  // CJK character: a token of its own (rule 4)
};

bool InRange(char32_t cp, char32_t lo, char32_t hi) { return cp >= lo && cp <= hi; }

CharClass Classify(char32_t cp) {
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

// Writes the UTF-8 form of `cp` (a valid scalar value) to out[0..3]; returns its length.
size_t EncodeUtf8(char32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// Strict UTF-8 decoding of the sequence at text[pos] (RFC 3629). Returns the code point and
// sets `length`; an invalid sequence yields kInvalid with length 1, so decoding resynchronises on
// the next byte.
constexpr char32_t kInvalid = 0xFFFFFFFF;

char32_t DecodeUtf8(std::string_view text, size_t pos, size_t& length) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[pos + i]); };
  const uint8_t b0 = byte(0);
  length = 1;
  if (b0 < 0x80) return b0;
  size_t n;
  char32_t cp;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return kInvalid;
  }
  if (text.size() - pos < n) return kInvalid;
  for (size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return kInvalid;
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || InRange(cp, 0xD800, 0xDFFF)) return kInvalid;
  length = n;
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

  // Emits the token unless a rule drops it, and starts a new one.
  void Flush(absl::FunctionRef<void(std::string_view)> emit) {
    const std::string_view token(buffer_.data(), size_);
    if (!token.empty() && !has_digit_ && token.size() <= kMaxTokenBytes &&
        !(chars_ >= kMinIdentifierChars && has_inner_upper_) && !IsDateOrTimeWord(token)) {
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
  if (token.empty()) return false;
  for (size_t slot = Fnv1a(token) % kDateWordTableSize; !kDateWordTable[slot].empty();
       slot = (slot + 1) % kDateWordTableSize) {
    if (kDateWordTable[slot] == token) return true;
  }
  return false;
}

void ForEachFingerprintToken(std::string_view text,
                             absl::FunctionRef<void(std::string_view token)> emit) {
  TokenBuilder token;
  std::array<char, 4> standalone;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t length;
    const char32_t cp = DecodeUtf8(text, pos, length);
    pos += length;
    const CharClass cls = cp == kInvalid ? CharClass::kSeparator : Classify(cp);
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

}  // namespace crawler::fingerprint::reference
