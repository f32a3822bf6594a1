// SurtKey: the sort key of a URL in a CDXJ index (pywb's "urlkey"), in the form webrecorder's
// tools compute it: warcio.js's getSurt, which ReplayWeb.page (wabac.js) also uses to look a URL
// up in a WACZ's compressed index, so an index keyed any other way would not be found.
//
// For an http(s) URL (the scheme matched case-sensitively, as warcio.js does):
//   1. a leading "www", digits and "." after the "//" are removed ("http://www2.a.org/" ->
//      "http://a.org/"; matched case-sensitively, before step 2);
//   2. the whole URL is lower-cased (path and query too);
//   3. it is parsed as a WHATWG URL (lib/url): default ports dropped, percent-encoding and dot
//      segments normalised, the fragment dropped;
//   4. key = host labels reversed and joined with "," (an IP address is split at its dots like
//      a name), ":" port if not the default, ")", the path, and "?" with the query's
//      "&"-separated parameters sorted (byte order) if the query is not empty.
// Any other URL, and one that does not parse after step 2, keys as itself (after step 1).
//
// Deviation: step 2 lower-cases ASCII letters only; warcio.js lower-cases every letter. A WARC
// target URI is a URI (RFC 3986: ASCII), so only a malformed one can tell the two apart.
//
// Thread-safety: a pure function.
#ifndef CRAWLER_LIB_WARC_SURT_H_
#define CRAWLER_LIB_WARC_SURT_H_

#include <string>
#include <string_view>

namespace crawler::warc {

std::string SurtKey(std::string_view url);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_SURT_H_
