#include "lib/html/internal/page_text.h"

#include <utility>

namespace crawler::html::internal {

void PageText::Open(GumboTag tag, bool furniture) {
  if (furniture) ++furniture_;
  if (IsContentSection(tag)) ++content_sections_;
}

void PageText::Close(GumboTag tag, bool furniture) {
  if (furniture) --furniture_;
  if (IsContentSection(tag)) --content_sections_;
}

void PageText::Append(std::string_view utf8) {
  if (!enabled_) return;
  text_.Append(utf8);
  if (furniture_ == 0) main_.Append(utf8);
}

void PageText::Break() {
  text_.Break();
  main_.Break();
}

void PageText::Space() {
  text_.Space();
  main_.Space();
}

void PageText::TakeInto(ExtractedPage& page) && {
  page.stats.text_truncated = text_.truncated();
  page.text = std::move(text_).Take();
  page.main_text = std::move(main_).Take();
}

}  // namespace crawler::html::internal
