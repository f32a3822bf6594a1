// Text normalisation for the content fingerprint (SimHash, simhash.h): turns the visible text of
// a page (UTF-8, as lib/html extracts it) into the sequence of word tokens that are shingled.
//
// The point of the normalisation is docs/architecture.md §7: a page has changed when its content
// changed, not when a date stamp, a counter, a rotating ad or a session id did. Every rule below
// removes a kind of token that changes between two visits of an unchanged page; docs/fingerprint.md
// gives the reasons and the measured effect. The rules, in order:
//
//  1. Decoding. UTF-8 is decoded strictly; every byte of an invalid or overlong sequence (and
//     surrogates, code points > U+10FFFF) acts as a word separator. Never fails;
//     ForEachFingerprintToken does not allocate (tokens are built in a fixed buffer).
//  2. Case. Simple lowercase mapping for ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic;
//     other scripts are left as they are. No Unicode normalisation (NFC is assumed, as HTML
//     producers emit it); no accent stripping.
//  3. Words. A token is a maximal run of letters, digits and combining marks. Separators: ASCII
//     punctuation and space, Latin-1 punctuation and symbols (U+0080-U+00BF, U+00D7, U+00F7),
//     general punctuation, symbols, arrows, box drawing, dingbats (U+2000-U+2BFF, U+2E00-U+2E7F),
//     CJK punctuation (U+3000-U+303F, U+30FB), fullwidth punctuation, private-use characters (icon
//     fonts), emoji (U+1F000-U+1FAFF) and U+FFF0-U+FFFF. Invisible characters that do not break
//     words (soft hyphen U+00AD, ZWNJ/ZWJ U+200C/D, word joiner U+2060, BOM U+FEFF, variation
//     selectors, tag characters) are skipped. So "don't" is "don" "t" and "e-mail" is "e" "mail".
//  4. CJK. Han ideographs, Hiragana and Katakana are written without spaces, so each such
//     character is a token of its own (character shingles are the usual choice for these
//     scripts). Thai, Lao, Khmer and Myanmar are not segmented: a run is one token.
//  5. Numbers: a token that contains a digit (ASCII, fullwidth, Arabic-Indic, Devanagari or
//     Bengali) is dropped. This removes dates, times, counters, prices, version numbers, page
//     numbers and most ids ("12,345 views" -> "views", "a8f3e9" -> nothing).
//  6. Identifiers: a token of >= kMinIdentifierChars characters with an ASCII upper-case letter
//     right after a lower-case one ("hQeRtYuIoPaSdFgH") is dropped: base64 / random ids without a
//     digit; natural words of that length with inner capitals are rare.
//  7. Long tokens: a token longer than kMaxTokenBytes bytes is dropped: no word is that long,
//     while URLs without separators, hashes and encoded blobs are.
//  8. Date and time words: month and weekday names (with common abbreviations), am/pm, time
//     zone abbreviations, "ago"/"today"/"yesterday" and time units (seconds ... years) in
//     English, German, French, Spanish and Russian are dropped: after rule 5, they are what is
//     left of "Monday, 3 March 2025, 10:42 CET" or "updated 5 minutes ago".
//
// ON-DISK CONTRACT: fingerprints are stored (frontier URL records, the dedup index) and compared
// with fingerprints computed later, so any change to these rules changes fingerprints of
// unchanged pages and makes every page look changed once. Bump kFingerprintVersion (simhash.h)
// when changing anything here.
//
// Thread-safety: pure functions; safe to call concurrently.
#ifndef CRAWLER_LIB_FINGERPRINT_TEXT_NORMALIZER_H_
#define CRAWLER_LIB_FINGERPRINT_TEXT_NORMALIZER_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace crawler::fingerprint {

// Rule 6: identifier-looking tokens at least this many code points long are dropped.
inline constexpr size_t kMinIdentifierChars = 16;
// Rule 7: tokens longer than this many bytes (after lowercasing) are dropped.
inline constexpr size_t kMaxTokenBytes = 64;

// Calls `emit` for each fingerprint token of `text`, in order. A token is non-empty lowercased
// UTF-8 without separators; the view is valid only during the call.
void ForEachFingerprintToken(std::string_view text,
                             absl::FunctionRef<void(std::string_view token)> emit);

// The tokens as a vector.
std::vector<std::string> FingerprintTokens(std::string_view text);

// The tokens joined by single spaces: what the fingerprint "sees". For tests, diagnostics and
// the docs; the fingerprint itself does not go through this string.
std::string NormalizeForFingerprint(std::string_view text);

// True if `token` (lowercase) is one of the date and time words of rule 8.
bool IsDateOrTimeWord(std::string_view token);

// Rule 8's words, lowercase: those for which IsDateOrTimeWord is true.
std::span<const std::string_view> DateAndTimeWords();

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_TEXT_NORMALIZER_H_
