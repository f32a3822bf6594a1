// Differential libFuzzer target for lib/html: the tokenizer extractor (ExtractOptions::Parser::
// kTokenizer, internal/token_extractor.h) against the Gumbo path (kGumbo) on the same input.
// Input: one selector byte, then the body. The selector's low 2 bits pick the Content-Type,
// bits 4-5 the nesting limit and bit 6 the attribute limit (as html_fuzzer.cc).
// Where the tokenizer extractor handles the page (it hands pages whose tree Gumbo would
// reorder to Gumbo), everything ExtractPage returns must be equal: links (URL, kind,
// nofollow, anchor text, in order), skipped counts, text, title, language, base URL, robots
// metadata, and the limits' drop counts. abort() on the first difference.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/html/charset.h"
#include "lib/html/extract_page.h"
#include "lib/html/internal/token_extractor.h"
#include "lib/url/url.h"

namespace {

using crawler::html::ExtractedPage;
using crawler::html::ExtractOptions;
using crawler::html::Link;
using crawler::url::Url;

constexpr std::string_view kContentTypes[4] = {
    "text/html; charset=utf-8",
    "",
    "text/html; charset=windows-1252",
    "text/html; charset=shift_jis",
};

constexpr size_t kNestingDepths[4] = {256, 24, 4, 0};

const Url& PageUrl() {
  static const Url* const page = new Url(*Url::Parse("https://fuzz.example/dir/page.html?q=1"));
  return *page;
}

// Printable ASCII as is, anything else as \xNN.
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7F && c != '\\') {
      out.push_back(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02X", b);
      out += hex;
    }
  }
  return out;
}

void Differ(const char* what, std::string_view gumbo, std::string_view tokenizer) {
  const std::string g = Escape(gumbo);
  const std::string t = Escape(tokenizer);
  std::fprintf(stderr, "html_diff_fuzzer: %s differs\n  gumbo:     [%s]\n  tokenizer: [%s]\n", what,
               g.c_str(), t.c_str());
  std::abort();
}

void Compare(const char* what, std::string_view gumbo, std::string_view tokenizer) {
  if (gumbo != tokenizer) Differ(what, gumbo, tokenizer);
}

void Compare(const char* what, uint64_t gumbo, uint64_t tokenizer) {
  if (gumbo != tokenizer) Differ(what, std::to_string(gumbo), std::to_string(tokenizer));
}

// How many inputs were compared, and how many the tokenizer handed to Gumbo, printed at exit so
// that a run shows the comparison is not vacuous.
struct Counts {
  uint64_t compared = 0;
  uint64_t gave_up = 0;
  ~Counts() {
    std::fprintf(stderr, "html_diff_fuzzer: compared %llu inputs, tokenizer gave up on %llu\n",
                 static_cast<unsigned long long>(compared),
                 static_cast<unsigned long long>(gave_up));
  }
};
Counts counts;

std::string Describe(const Link& link) {
  return std::string(crawler::html::LinkKindName(link.kind)) + " " + link.url.href() +
         (link.nofollow ? " nofollow" : "") + " [" + link.anchor_text + "]";
}

std::string DescribeLinks(const ExtractedPage& page) {
  std::string out;
  for (const Link& link : page.links) out += Describe(link) + "\n  ";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  ExtractOptions options;
  options.max_links = 100;
  options.max_text_bytes = 4096;
  options.max_anchor_text_bytes = 64;
  options.max_title_bytes = 64;
  options.max_url_bytes = 512;
  options.max_nesting_depth = kNestingDepths[(selector >> 4) & 3];
  options.max_attributes_per_element = (selector & 0x40) ? 3 : 64;
  const std::string_view content_type = kContentTypes[selector & 3];

  options.parser = ExtractOptions::Parser::kGumbo;
  absl::StatusOr<ExtractedPage> gumbo =
      crawler::html::ExtractPage(body, PageUrl(), content_type, options);
  if (!gumbo.ok()) return 0;  // the tokenizer hands such pages to Gumbo

  // ExtractPage's decoding, then the tokenizer extractor alone (ExtractPage would fall back).
  const crawler::html::SniffedEncoding sniffed =
      crawler::html::SniffEncoding(body, content_type, false);
  absl::StatusOr<std::string> html =
      crawler::html::DecodeToUtf8(body.substr(sniffed.bom_bytes), sniffed.encoding);
  if (!html.ok()) return 0;
  ExtractedPage tokenized;
  if (!crawler::html::internal::ExtractWithTokenizer(*html, PageUrl(), options, tokenized)) {
    ++counts.gave_up;
    return 0;
  }
  ++counts.compared;

  Compare("links", DescribeLinks(*gumbo), DescribeLinks(tokenized));
  Compare("title", gumbo->meta.title, tokenized.meta.title);
  Compare("language", gumbo->meta.language, tokenized.meta.language);
  Compare("base URL", gumbo->meta.base_url, tokenized.meta.base_url);
  Compare("noindex", gumbo->meta.noindex, tokenized.meta.noindex);
  Compare("nofollow", gumbo->meta.nofollow, tokenized.meta.nofollow);
  const auto& gs = gumbo->skipped;
  const auto& ts = tokenized.skipped;
  Compare("skipped.javascript", gs.javascript, ts.javascript);
  Compare("skipped.mailto", gs.mailto, ts.mailto);
  Compare("skipped.data", gs.data, ts.data);
  Compare("skipped.other_scheme", gs.other_scheme, ts.other_scheme);
  Compare("skipped.invalid", gs.invalid, ts.invalid);
  Compare("skipped.empty", gs.empty, ts.empty);
  Compare("skipped.too_long", gs.too_long, ts.too_long);
  Compare("skipped.same_document", gs.same_document, ts.same_document);
  Compare("skipped.over_limit", gs.over_limit, ts.over_limit);
  Compare("start_tags_dropped", gumbo->stats.start_tags_dropped,
          tokenized.stats.start_tags_dropped);
  Compare("attributes_dropped", gumbo->stats.attributes_dropped,
          tokenized.stats.attributes_dropped);
  Compare("text", gumbo->text, tokenized.text);
  Compare("main_text", gumbo->main_text, tokenized.main_text);
  Compare("text_truncated", gumbo->stats.text_truncated, tokenized.stats.text_truncated);
  return 0;
}
