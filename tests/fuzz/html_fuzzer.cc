// libFuzzer target for lib/html: ExtractPage on arbitrary bytes, page URL fixed.
// Input: one selector byte, then the body. The selector's low 4 bits pick the Content-Type
// header (none, or a charset whose decoder behaves differently: multi-byte, stateful, UTF-16,
// replacement, ...); bits 4-5 pick the nesting limit and bit 6 the attribute limit, so that the
// limiter's drop paths run on small inputs too.
// Properties checked on every result, abort() on violation:
//   - every link is an absolute http(s) URL without fragment that lib/url parses back to itself;
//   - the link count, the text, anchor text and title respect their bounds;
//   - text, anchor text, title and language are well-formed UTF-8;
//   - the only error is kResourceExhausted;
//   - the tree Gumbo built stays within a small multiple of the nesting limit: the limiter's
//     model of the tree builder has no gap an attacker could use to nest without bound.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/html/charset.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"

namespace {

using crawler::html::ExtractedPage;
using crawler::html::ExtractOptions;
using crawler::html::IsValidUtf8;
using crawler::html::Link;
using crawler::url::Url;

void Check(bool ok, const char* what, std::string_view detail) {
  if (ok) return;
  std::fprintf(stderr, "html_fuzzer: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

constexpr std::string_view kContentTypes[16] = {
    "",
    "text/html",
    "text/html; charset=utf-8",
    "text/html; charset=windows-1252",
    "text/html; charset=shift_jis",
    "text/html; charset=utf-16le",
    "text/html; charset=utf-16be",
    "text/html; charset=iso-2022-jp",
    "text/html; charset=gb18030",
    "text/html; charset=euc-kr",
    "text/html; charset=big5",
    "text/html; charset=x-user-defined",
    "text/html; charset=iso-2022-kr",  // the replacement encoding
    "text/html; charset=koi8-r",
    "text/html; charset=euc-jp",
    "text/html; charset=\"iso-8859-8-i\"",
};

constexpr size_t kNestingDepths[4] = {256, 24, 4, 0};

const Url& PageUrl() {
  static const Url* const page = new Url(*Url::Parse("https://fuzz.example/dir/page.html?q=1"));
  return *page;
}

void CheckLink(const Link& link, const ExtractOptions& options) {
  const std::string& href = link.url.href();
  absl::StatusOr<Url> reparsed = Url::Parse(href);
  Check(reparsed.ok(), "link URL does not parse", href);
  Check(reparsed->href() == href, "link URL is not in serialised form", href);
  Check(!reparsed->has_fragment(), "link URL has a fragment", href);
  Check(reparsed->scheme() == "http" || reparsed->scheme() == "https", "link URL not http(s)",
        href);
  // Percent-encoding at most triples a reference, and the base (page or <base href>, which obeys
  // the same limit) comes in front of a relative one.
  Check(href.size() <= 6 * options.max_url_bytes + PageUrl().href().size(), "link URL too long",
        href);
  Check(link.anchor_text.size() <= options.max_anchor_text_bytes, "anchor text too long",
        link.anchor_text);
  Check(IsValidUtf8(link.anchor_text, false), "anchor text is not UTF-8", link.anchor_text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  ExtractOptions options;
  options.max_links = 100;
  options.max_text_bytes = 4096;
  options.max_anchor_text_bytes = 64;
  options.max_title_bytes = 64;
  options.max_url_bytes = 512;
  options.max_nesting_depth = kNestingDepths[(selector >> 4) & 3];
  options.max_attributes_per_element = (selector & 0x40) ? 3 : 64;
  const std::string_view content_type = kContentTypes[selector & 15];

  absl::StatusOr<ExtractedPage> page =
      crawler::html::ExtractPage(body, PageUrl(), content_type, options);
  if (!page.ok()) {
    Check(page.status().code() == absl::StatusCode::kResourceExhausted, "unexpected error",
          page.status().ToString());
    return 0;
  }
  Check(page->links.size() <= options.max_links, "too many links", "");
  for (const Link& link : page->links) CheckLink(link, options);
  Check(page->text.size() <= options.max_text_bytes, "text too long", "");
  Check(IsValidUtf8(page->text, false), "text is not UTF-8", page->text);
  Check(page->meta.title.size() <= options.max_title_bytes, "title too long", page->meta.title);
  Check(IsValidUtf8(page->meta.title, false), "title is not UTF-8", page->meta.title);
  Check(IsValidUtf8(page->meta.language, false), "language is not UTF-8", page->meta.language);
  // Formatting elements re-opened on top of a full stack may double it, and the adoption
  // agency's re-parenting makes the tree a little deeper than the stack (nesting_limiter.h).
  Check(page->stats.tree_depth <= 3 * options.max_nesting_depth + 16,
        "tree deeper than the limit", std::to_string(page->stats.tree_depth));
  absl::StatusOr<Url> base = Url::Parse(page->meta.base_url);
  Check(base.ok(), "base URL does not parse", page->meta.base_url);
  return 0;
}
