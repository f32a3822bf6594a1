// SniffContentType: the media type the crawler acts on, from the declared Content-Type and the
// first bytes of the (decoded) body, following the WHATWG MIME Sniffing Standard §7 ("determining
// the computed MIME type of a resource") as far as a crawler needs it:
//   - a declared type is trusted, except when absent or one of "unknown/unknown",
//     "application/unknown", "*/*", in which case the body is sniffed (§7.1 "identifying an
//     unknown MIME type": HTML, XML, PDF, PostScript, images, archives, then text-or-binary);
//   - a declared "text/plain" (and its Apache-default variants) is checked for binary bytes
//     (§7.2 "identifying a resource with an unknown... text or binary");
//   - XML-declared or -sniffed documents whose root is <urlset>/<sitemapindex>/<rss>/<feed>
//     are reported as such, since the crawler handles sitemaps and feeds differently.
// Only the first kSniffBytes bytes are examined.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTTP_CONTENT_SNIFFER_H_
#define CRAWLER_LIB_HTTP_CONTENT_SNIFFER_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace crawler::http {

inline constexpr size_t kSniffBytes = 1445;  // WHATWG MIME Sniffing §5.2 resource header

// `declared_essence` as ParseMediaType returns it ("" when absent). Returns an essence such as
// "text/html", "application/xml", "text/plain", "application/octet-stream".
std::string SniffContentType(std::string_view declared_essence, std::string_view body);

// True for the types the link extractor parses as HTML.
bool IsHtml(std::string_view essence);

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_CONTENT_SNIFFER_H_
