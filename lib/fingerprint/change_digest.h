// ChangeDigest: an exact 64-bit digest of a page's main content text (html::ExtractedPage::
// main_text: the visible text without navigation, site header and footer, ads, bylines...),
// normalised so that what changes between two visits of an unchanged page does not change it.
// It answers "did the content change" where the SimHash (simhash.h) cannot: a one-sentence
// edit or a new price on a long page moves a SimHash by a bit or two, below any threshold that
// ignores a rotating ad line, but changes the digest. The price of exactness is that every
// furniture the extraction does not recognise as such and that changes per visit makes the
// page look changed; the normalisation takes out the common ones that live in the content
// itself (docs/fingerprint.md has the measurements):
//
//  1. Words: the text is split at whitespace; ASCII punctuation at either end of a word is
//     removed ("EUR." -> "EUR", "(12" -> "12"), inner punctuation kept ("12.34", "e-mail");
//     ASCII letters are lowercased. So markup, whitespace, punctuation-only and case-only
//     differences do not count.
//  2. Clock times (10:42, 10:42:07.123, 9:05pm) and numeric dates (2025-03-05, 05.03.2025,
//     3/5/25, ISO 8601 date-times) are dropped.
//  3. Date and time words (text_normalizer.h IsDateOrTimeWord: month and weekday names, time
//     zones, am/pm, "ago", time units, in five languages) are dropped, and so are numbers (at
//     most 4 digits, ordinals such as "5th" too) within two words of a month or weekday name:
//     "Monday, 5 March 2025" and "March 5th, 2025" leave nothing.
//  4. Counters: a number right before or after a counter word (views, visits, visitor(s),
//     readers, hits, reads, likes, shares, comments, downloads, clicks, "viewed ... times"), or
//     after the word and "number"/"no"/"#" ("visitor number 12"), is dropped.
//  5. Advertising: a block (a line of main_text) that starts with an advertising disclosure
//     label — "Advertisement", "Sponsored", "Ad:", "Anzeige", "Werbung", "Publicité",
//     "Publicidad", "Reklama" — is dropped, for ads the extraction did not recognise by their
//     markup: consumer-protection law in most markets requires ads in editorial content to be
//     labelled, so the label is the most reliable mark an unmarked ad carries.
// Every other number stays: a price, a quantity or a table cell that changes is a real change.
// The words that remain are hashed with XXH3-64 (seed 0), separated by one space.
//
// Known blind spots: a date written in the prose ("the meeting moves to 12 March") is taken for
// a stamp, and a counter next to a counter word for a counter ("3 comments received" -> "5
// comments received" is no change).
//
// ON-DISK CONTRACT: digests are stored in the frontier's URL records and compared with digests
// computed later; any change to these rules (or to the extraction of main_text) makes every
// page look changed once. Bump kChangeDigestVersion when changing them.
//
// Thread-safety: pure functions; ChangeDigest is an immutable value.
#ifndef CRAWLER_LIB_FINGERPRINT_CHANGE_DIGEST_H_
#define CRAWLER_LIB_FINGERPRINT_CHANGE_DIGEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crawler::fingerprint {

inline constexpr int kChangeDigestVersion = 1;

class ChangeDigest {
 public:
  // REQUIRES: bits != 0 (0 stands for "no digest" where digests are stored).
  constexpr explicit ChangeDigest(uint64_t bits) : bits_(bits) {}

  constexpr uint64_t bits() const { return bits_; }

  friend constexpr bool operator==(ChangeDigest, ChangeDigest) = default;

 private:
  uint64_t bits_;
};

// The digest of `main_text` (UTF-8, as ExtractPage writes it; invalid bytes are hashed as they
// are); nullopt when no word is left after normalisation — a page without main content has
// nothing the digest could compare, so the caller falls back to another signal. Never 0. Linear
// time; memory is one copy of the text.
std::optional<ChangeDigest> ComputeChangeDigest(std::string_view main_text);

// The normalised words joined by single spaces: what the digest hashes. For tests, diagnostics
// and the docs.
std::string NormalizeForChangeDigest(std::string_view main_text);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_CHANGE_DIGEST_H_
