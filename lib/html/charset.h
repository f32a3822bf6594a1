// Character encodings of HTML bodies: the labels of the WHATWG Encoding Standard
// (https://encoding.spec.whatwg.org/#names-and-labels), a simplified version of the HTML
// Standard's encoding sniffing algorithm (13.2.3.2 "Determining the character encoding"), and
// the conversion of a body to UTF-8, which is what Gumbo parses.
//
// Sniffing follows the spec's order and stops at the first answer:
//   1. a byte order mark (UTF-8, UTF-16BE, UTF-16LE);
//   2. the charset parameter of the HTTP Content-Type header, if it names a known encoding;
//   3. the prescan of the first 1024 bytes for <meta charset> / <meta http-equiv=Content-Type>
//      (13.2.3.2 "prescan a byte stream to determine its encoding", as specified);
//   4. a default where the spec lets implementations choose: UTF-8 when the whole body is valid
//      UTF-8 (a cheap, exact stand-in for the spec's optional frequency analysis; a character
//      cut by a size limit at the very end does not count against it), otherwise windows-1252,
//      the default browsers use for most locales.
// Deviations: no user override, no parent browsing context, and the tree builder's "change the
// encoding" on a late <meta> is not done (the first 1024 bytes decide).
//
// Decoding replaces malformed input with U+FFFD, as the Encoding Standard's decoders do in
// "replacement" error mode. UTF-8, windows-1252 and x-user-defined are decoded here; the other
// legacy encodings use glibc iconv with the closest glibc charset (e.g. Shift_JIS -> WINDOWS-31J,
// EUC-KR -> CP949, Big5 -> BIG5-HKSCS, GBK -> GB18030, as the Encoding Standard defines them).
//
// Thread-safety: every function here is pure and thread-safe (each conversion opens its own
// iconv descriptor).
#ifndef CRAWLER_LIB_HTML_CHARSET_H_
#define CRAWLER_LIB_HTML_CHARSET_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::html {

// The encodings of the Encoding Standard (section 4.2), in its order.
enum class Encoding : uint8_t {
  kUtf8,
  kIbm866,
  kIso8859_2,
  kIso8859_3,
  kIso8859_4,
  kIso8859_5,
  kIso8859_6,
  kIso8859_7,
  kIso8859_8,
  kIso8859_8I,
  kIso8859_10,
  kIso8859_13,
  kIso8859_14,
  kIso8859_15,
  kIso8859_16,
  kKoi8R,
  kKoi8U,
  kMacintosh,
  kWindows874,
  kWindows1250,
  kWindows1251,
  kWindows1252,
  kWindows1253,
  kWindows1254,
  kWindows1255,
  kWindows1256,
  kWindows1257,
  kWindows1258,
  kXMacCyrillic,
  kGbk,
  kGb18030,
  kBig5,
  kEucJp,
  kIso2022Jp,
  kShiftJis,
  kEucKr,
  kReplacement,
  kUtf16Be,
  kUtf16Le,
  kXUserDefined,
};

// The encoding's canonical name as the Encoding Standard spells it ("UTF-8", "windows-1252",
// "Shift_JIS").
std::string_view EncodingName(Encoding encoding);

// "Get an encoding" (Encoding Standard 4.2): trims ASCII whitespace, matches the label
// ASCII-case-insensitively. nullopt for an unknown label.
std::optional<Encoding> EncodingForLabel(std::string_view label);

// Where the sniffed encoding came from.
enum class CharsetSource : uint8_t {
  kBom,          // a byte order mark
  kHttpHeader,   // the Content-Type header's charset parameter
  kMetaPrescan,  // <meta charset> or <meta http-equiv=Content-Type> in the first 1024 bytes
  kDefault,      // nothing declared: UTF-8 if the body is valid UTF-8, else windows-1252
};

// "bom", "http-header", "meta", "default".
std::string_view CharsetSourceName(CharsetSource source);

struct SniffedEncoding {
  Encoding encoding = Encoding::kUtf8;
  CharsetSource source = CharsetSource::kDefault;
  // Length of the byte order mark to skip before decoding (0, 2 or 3).
  size_t bom_bytes = 0;
};

// The encoding sniffing algorithm described at the top of this file. `content_type` is the raw
// Content-Type header value (may be empty). `body_truncated` says the body was cut at a size
// limit, so that its last character may be incomplete.
SniffedEncoding SniffEncoding(std::string_view body, std::string_view content_type,
                              bool body_truncated = false);

// The charset parameter of a Content-Type header value ("text/html; charset=\"UTF-8\""), if it
// names a known encoding.
std::optional<Encoding> EncodingFromContentType(std::string_view content_type);

// HTML 13.2.3.2 "prescan a byte stream to determine its encoding", on at most the first 1024
// bytes of `body`. As the spec says, UTF-16 found this way becomes UTF-8 and x-user-defined
// becomes windows-1252.
std::optional<Encoding> PrescanForMetaEncoding(std::string_view body);

// The HTML Standard's "algorithm for extracting a character encoding from a meta element"
// (urls-and-fetching.html), applied to the content attribute of <meta http-equiv=Content-Type>
// ("text/html; charset=koi8-r").
std::optional<Encoding> EncodingFromMetaContent(std::string_view content);

// True if `bytes` is well-formed UTF-8. With `allow_truncated_tail`, an incomplete but otherwise
// valid sequence at the very end is accepted (the body may have been cut at a size limit).
bool IsValidUtf8(std::string_view bytes, bool allow_truncated_tail);

// Decodes `bytes` (without BOM) from `encoding` into UTF-8, replacing malformed sequences with
// U+FFFD. The output is always well-formed UTF-8.
// Errors: kUnimplemented if the C library has no converter for the encoding (glibc without its
// gconv modules).
absl::StatusOr<std::string> DecodeToUtf8(std::string_view bytes, Encoding encoding);

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_CHARSET_H_
