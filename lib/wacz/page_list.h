// PageList: the pages of a WACZ package (pages/pages.jsonl, WACZ 1.1.1 §"pages.jsonl"), found
// in the WARC records as they are read:
//   - a page is a URL with an HTML capture (text/html or application/xhtml+xml) of status 2xx:
//     a response, or a revisit whose HTTP header block says so;
//   - it is listed once, at its first capture (ts: its WARC-Date), with the title of its first
//     response (lib/html's <title>, content codings undone; a revisit has no body to read one
//     from, so a URL captured only as revisits has no title);
//   - "seed": true when a metadata record of the URL says "depth: 0" (the crawler writes the
//     page's link distance from a seed first in its metadata records).
// Lines are sorted by URL in bounded memory (lib/warc/external_sorter.h), so the list costs no
// memory per page.
//
// Thread-safety: one thread at a time.
#ifndef CRAWLER_LIB_WACZ_PAGE_LIST_H_
#define CRAWLER_LIB_WACZ_PAGE_LIST_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/warc_reader.h"

namespace crawler::wacz {

class PageList {
 public:
  explicit PageList(warc::ExternalSorterOptions sort);

  // Looks at one record (any type; those that say nothing about pages are passed over).
  // kUnavailable when the sort cannot spill.
  absl::Status Add(const warc::ParsedRecord& record);

  // Emits the lines of pages/pages.jsonl, the format line first, then one JSON object per page
  // in URL order; forgets the pages. Stops at the first non-OK status of `emit`.
  absl::Status Finish(const std::function<absl::Status(std::string_view)>& emit);

  uint64_t pages() const { return pages_; }
  uint64_t seeds() const { return seeds_; }

 private:
  warc::ExternalSorter sorter_;
  uint64_t pages_ = 0;
  uint64_t seeds_ = 0;
};

}  // namespace crawler::wacz

#endif  // CRAWLER_LIB_WACZ_PAGE_LIST_H_
