// LinkSink: where the fetcher hands every fetched HTML page's links, before scope, nofollow and
// deduplication, for link exports and for a focused collection's reward (docs/focused.md).
//
// Thread-safety: implementations must be thread-safe; worker threads call RecordPage at once.
#ifndef CRAWLER_SERVICES_FETCHER_LINK_SINK_H_
#define CRAWLER_SERVICES_FETCHER_LINK_SINK_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/html/extracted_page.h"
#include "lib/html/link.h"
#include "lib/url/url.h"

namespace crawler::fetcher {

struct PageLinks {
  std::string_view canonical_url;  // the page's
  const url::Url& url;             // the page's, parsed
  uint32_t depth = 0;              // link distance of the page from a seed
  const std::vector<html::Link>& links;
  const std::vector<html::UnresolvedRef>& unresolved;
};

class LinkSink {
 public:
  virtual ~LinkSink() = default;
  // Records one page's links; returns how many of its external hyperlinks (<a>, <area>, script
  // navigations: html::LinkKind::kScript) the collection had not seen before: the page's reward
  // in a focused collection. Never fails: a sink that cannot store says so its own way (a
  // counter, a log line) and still counts.
  virtual uint32_t RecordPage(const PageLinks& page) = 0;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_LINK_SINK_H_
