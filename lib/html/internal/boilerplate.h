// Page furniture: the elements of an HTML page that are not its main content — navigation,
// site header and footer, sidebars, ads, bylines, share and comment widgets. ExtractPage leaves
// their text out of ExtractedPage::main_text, which feeds the change digest
// (lib/fingerprint/change_digest.h): a page whose furniture moved has not changed.
//
// An element is furniture by structure, the way readability-style extractors and the HTML
// Standard's sectioning model see it, not by its text:
//   - <nav>, <aside>, <menu>; <header> and <footer> of the page (HTML 4.4.8/4.4.9: inside an
//     <article>, <main> or <section> they are that section's header and footer — the title
//     and byline of an article, which stay content).
//   - ARIA landmark roles of furniture: navigation, banner, contentinfo, complementary, search,
//     menu, menubar, toolbar.
//   - A class or id naming furniture: a token of the attribute split at whitespace, '-' and '_'
//     ("site-nav", "entry_meta", "ad-slot") equal, ASCII case-insensitively, to one of the words
//     in boilerplate.cc (nav, menu, sidebar, ad, ads, banner, sponsor, byline, meta, share,
//     comments, related, ...). Whole words only: "header-ads" matches, "download" does not.
// Link density is deliberately not a rule: a list of links is the content of an index page, and
// a new item in it is the change a re-visit looks for.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTML_INTERNAL_BOILERPLATE_H_
#define CRAWLER_LIB_HTML_INTERNAL_BOILERPLATE_H_

#include <gumbo.h>

#include <optional>
#include <string_view>

namespace crawler::html::internal {

// The attributes the decision reads, character references decoded; nullopt when absent.
struct FurnitureAttributes {
  std::optional<std::string_view> role;
  std::optional<std::string_view> class_list;
  std::optional<std::string_view> id;
};

// True if an HTML element with tag `tag` and these attributes is page furniture;
// `in_content_section`: an <article>, <main> or <section> element is open around it.
bool IsFurniture(GumboTag tag, const FurnitureAttributes& attributes, bool in_content_section);

// <article>, <main> and <section>: elements whose <header> and <footer> are content.
bool IsContentSection(GumboTag tag);

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_BOILERPLATE_H_
