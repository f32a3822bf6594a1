// PageText: the two texts both of ExtractPage's parsers collect from the body — the visible
// text (ExtractedPage::text) and the main content text, the visible text outside page
// furniture (ExtractedPage::main_text, internal/boilerplate.h) — with the same separators.
//
// Thread-safety: not thread-safe; one per extraction.
#ifndef CRAWLER_LIB_HTML_INTERNAL_PAGE_TEXT_H_
#define CRAWLER_LIB_HTML_INTERNAL_PAGE_TEXT_H_

#include <gumbo.h>

#include <cstddef>
#include <vector>
#include <string_view>

#include "lib/html/internal/boilerplate.h"
#include "lib/html/extracted_page.h"
#include "lib/html/text_builder.h"

namespace crawler::html::internal {

class PageText {
 public:
  // `enabled`: ExtractOptions::collect_text; when false nothing is kept.
  PageText(bool enabled, size_t max_bytes)
      : enabled_(enabled), text_(max_bytes), main_(max_bytes) {}

  // An HTML element opens / closes (in tree order, balanced). `furniture` is decided once, when
  // it opens: Furniture() gives the rule with the content sections open at that point.
  void Open(GumboTag tag, bool furniture);
  void Close(GumboTag tag, bool furniture);
  bool Furniture(GumboTag tag, const FurnitureAttributes& attributes) const {
    return IsFurniture(tag, attributes, content_sections_ > 0);
  }

  void Append(std::string_view utf8);
  void Break();
  void Space();

  // Moves both texts into `page` (text, main_text, stats.text_truncated).
  void TakeInto(ExtractedPage& page) &&;

 private:
  const bool enabled_;
  TextBuilder text_;
  TextBuilder main_;
  int furniture_ = 0;         // open furniture elements
  int content_sections_ = 0;  // open article, main and section elements
};

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_PAGE_TEXT_H_
