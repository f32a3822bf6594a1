// Link: one outgoing reference found in an HTML page, and the kinds of element it can come from.
//
// Thread-safety: plain values.
#ifndef CRAWLER_LIB_HTML_LINK_H_
#define CRAWLER_LIB_HTML_LINK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/url/url.h"

namespace crawler::html {

// Where a link came from (HTML Standard element names).
enum class LinkKind : uint8_t {
  kA,          // <a href>
  kArea,       // <area href>
  kFrame,      // <frame src>
  kIframe,     // <iframe src>
  kCanonical,  // <link rel=canonical href>
  kAlternate,  // <link rel=alternate href> (translations, feeds; not alternate style sheets)
  kRefresh,    // <meta http-equiv=refresh content="N; url=...">
  kImg,        // <img src>
  // A literal URL an element's click or key handler, or an <a>/<area> javascript: href,
  // navigates to (location.href = '/next', window.open('/next'); script_navigation.h).
  kScript,
};

// "a", "area", "frame", "iframe", "canonical", "alternate", "refresh", "img", "script".
std::string_view LinkKindName(LinkKind kind);

struct Link {
  // Absolute http(s) URL, parsed by lib/url (WHATWG URL Standard), fragment removed; its
  // serialisation is url.href().
  url::Url url;
  LinkKind kind = LinkKind::kA;
  // rel=nofollow on the element, or nofollow/none in the page's <meta name=robots>.
  bool nofollow = false;
  // Visible text of an <a> (whitespace collapsed), the alt text of an <area> or <img>, or of
  // images inside the <a>; bounded by ExtractOptions::max_anchor_text_bytes. Empty otherwise
  // (kScript links have none).
  std::string anchor_text;

  friend bool operator==(const Link&, const Link&) = default;
};

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_LINK_H_
