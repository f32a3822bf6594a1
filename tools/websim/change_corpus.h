// ChangeCorpus: a labelled corpus of page versions for measuring change detection and
// near-duplicate detection (docs/websim.md "Change corpus"; bench/changes).
//
// Each page is an article page with the furniture real sites carry: navigation, a date stamp, a
// view counter, a rotating ad line, links with session ids, a news list, a price table and
// 3-8 paragraphs (80-1,200 words in all). A *version pair* is the page and a copy with one
// labelled edit:
//   noise (the page did not change):  date stamp, view counter, rotating ad line, session ids in
//     links, navigation reordered, whitespace and markup (indentation, tags, attributes);
//   real edits (the page changed):    a paragraph added, removed or rewritten, a price changed,
//     a text cell of the table changed, a news item added.
// A *duplicate pair* is two pages on different hosts: a mirror (the same article with the other
// host's furniture: its own date, counter, ad and session ids; a duplicate) or a template pair
// (the same site furniture around different articles; not a duplicate).
//
// Everything is a pure function of the options (seeded): the labels are the ground truth, as
// websim's change log is for the served web. Words come from a 4,096-word vocabulary of
// pronounceable pseudo-words, so shingles of different texts rarely collide.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_TOOLS_WEBSIM_CHANGE_CORPUS_H_
#define CRAWLER_TOOLS_WEBSIM_CHANGE_CORPUS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace crawler::websim {

enum class EditKind {
  // Noise.
  kDateStamp,
  kCounter,
  kRotatingAd,
  kSessionIds,
  kNavigationOrder,
  kWhitespaceMarkup,
  // Real edits.
  kParagraphAdded,
  kParagraphRemoved,
  kParagraphRewritten,
  kPriceChanged,
  kTableCellChanged,
  kNewsItemAdded,
};
inline constexpr int kEditKinds = 12;

// "date-stamp", "counter", ..., "news-item-added".
std::string_view EditKindName(EditKind kind);
// True for the real edits.
bool IsRealEdit(EditKind kind);

struct ChangeCorpusOptions {
  uint64_t seed = 1;
  // Base pages; every page yields one pair per edit kind.
  int pages = 100;
  // Duplicate pairs of each kind (mirror, template).
  int duplicate_pairs = 100;
  // Whether the furniture is marked up the way most CMS themes mark it: navigation in <nav> or
  // a site <header>, the date line in <p class="meta">, the ad in <div class="ad">, the footer
  // in <footer>. False: every piece of furniture in a plain <div> or <p> without a class, as on
  // hand-written or table-era sites; the words are the same. Structure-aware extraction sees
  // only the first.
  bool furniture_markup = true;
};

struct VersionPair {
  int page = 0;
  EditKind kind = EditKind::kDateStamp;
  bool changed = false;  // IsRealEdit(kind)
  std::string before_url;
  std::string before_html;
  std::string after_html;  // the same URL
};

struct DuplicatePair {
  int pair = 0;
  bool mirror = false;  // a mirror (duplicate); else a template pair (not a duplicate)
  std::string first_url;
  std::string first_html;
  std::string second_url;  // on another host
  std::string second_html;
};

struct ChangeCorpus {
  std::vector<VersionPair> versions;
  std::vector<DuplicatePair> duplicates;
};

ChangeCorpus BuildChangeCorpus(const ChangeCorpusOptions& options);

// Writes the corpus under `dir` (created if missing): labels.tsv (the ground truth: one line per
// pair, "version<TAB>page<TAB>kind<TAB>changed" or "duplicate<TAB>pair<TAB>mirror|template<TAB>
// duplicate") and each pair's two HTML files, versions/<page>-<kind>-{before,after}.html and
// duplicates/<pair>-{first,second}.html.
absl::Status ExportChangeCorpus(const ChangeCorpus& corpus, const std::string& dir);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_CHANGE_CORPUS_H_
