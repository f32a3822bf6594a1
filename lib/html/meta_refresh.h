// ParseMetaRefresh: the content attribute of <meta http-equiv="refresh">, read as the HTML
// Standard's Refresh pragma (4.2.5.3 "Pragma directives") does through its "shared declarative
// refresh steps":
//   "5", "5; url=/next", "0;URL='/next'", "3, /next", ".5 ; url = \"x\"".
//
// Thread-safety: pure function.
#ifndef CRAWLER_LIB_HTML_META_REFRESH_H_
#define CRAWLER_LIB_HTML_META_REFRESH_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace crawler::html {

struct MetaRefresh {
  // Whole seconds before the refresh (the fractional part is ignored, as specified).
  // Saturates at UINT32_MAX.
  uint32_t delay_seconds = 0;
  // The URL to refresh to, not yet parsed (a view into the content string). Absent when the
  // content names no URL: the page refreshes itself.
  std::optional<std::string_view> url;
};

// nullopt when the content is not a valid refresh declaration (e.g. "soon", "; url=x").
std::optional<MetaRefresh> ParseMetaRefresh(std::string_view content);

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_META_REFRESH_H_
