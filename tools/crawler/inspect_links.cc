// `crawler inspect links`: the links, visible text or metadata the crawler takes from one HTML
// page (lib/html).
//
//   crawler inspect links --base URL [--content-type CT] FILE           links, JSON lines
//   crawler inspect links --base URL [--content-type CT] --text FILE    visible text
//   crawler inspect links --base URL [--content-type CT] --meta FILE    metadata, one JSON object
//
// FILE holds the raw response body ("-" reads standard input); --base is the URL it was fetched
// from, which relative links resolve against; --content-type is the response's Content-Type
// header, whose charset parameter (if any) decides the encoding.
//
// Links: one JSON object per line, in document order:
//   {"url":"https://example.com/a","kind":"a","nofollow":false,"text":"anchor text"}
// kind is one of a, area, frame, iframe, canonical, alternate, refresh, img. Output is UTF-8;
// strings are JSON-escaped (control characters as \uXXXX).
// Exit 0 on success; 1 when the page could not be parsed within its resource budget; 2 for bad
// flags, an invalid --base ("invalid URL: ...") or an unreadable file.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/status/statusor.h"
#include "lib/html/charset.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"
#include "lib/json/json_string.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct InspectLinksArgs {
  std::string file;
  std::string base;
  std::string content_type;
  bool text = false;
  bool meta = false;
};

constexpr char kFormatHelp[] =
    "Output (default): one JSON object per link, in document order:\n"
    "  {\"url\":\"https://example.com/a\",\"kind\":\"a\",\"nofollow\":false,\"text\":\"...\"}\n"
    "kind: a, area, frame, iframe, canonical, alternate, refresh, img, script. url is absolute,\n"
    "without fragment; nofollow comes from rel=nofollow or <meta name=robots>; text is the anchor\n"
    "text (or alt text). javascript:, mailto:, data: and other non-http(s) references are\n"
    "skipped. script links (after all others, each target once) are the literal URLs that click\n"
    "and key handlers (onclick=\"location.href='/x'\") and javascript: hrefs navigate to.\n"
    "--text prints the visible text instead; --meta one JSON object with title, language,\n"
    "charset, charset_source, noindex, nofollow, base, link and skip counts.\n"
    "Exit: 0 ok; 1 page too costly to parse; 2 bad flags, invalid --base, unreadable file.\n";


void AppendJsonField(std::string_view name, std::string_view value, std::string& out) {
  if (out.back() != '{') out.push_back(',');
  json::AppendJsonString(name, out);
  out.push_back(':');
  json::AppendJsonString(value, out);
}

void AppendJsonField(std::string_view name, bool value, std::string& out) {
  if (out.back() != '{') out.push_back(',');
  json::AppendJsonString(name, out);
  out += value ? ":true" : ":false";
}

void AppendJsonField(std::string_view name, uint64_t value, std::string& out) {
  if (out.back() != '{') out.push_back(',');
  json::AppendJsonString(name, out);
  out.push_back(':');
  out += std::to_string(value);
}

// Reads at most `limit` bytes; ExtractPage ignores what lies beyond its input limit anyway.
bool ReadBody(const std::string& file, size_t limit, std::string& body) {
  std::ifstream stream;
  std::istream* in = &std::cin;
  if (file != "-") {
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) return false;
    stream.open(file, std::ios::binary);
    if (!stream.is_open()) return false;
    in = &stream;
  }
  char chunk[64 << 10];
  while (body.size() < limit && *in) {
    in->read(chunk, static_cast<std::streamsize>(std::min(sizeof(chunk), limit - body.size())));
    body.append(chunk, static_cast<size_t>(in->gcount()));
  }
  return !in->bad();
}

std::string MetaJson(const html::ExtractedPage& page) {
  std::string out = "{";
  AppendJsonField("title", page.meta.title, out);
  AppendJsonField("language", page.meta.language, out);
  AppendJsonField("charset", html::EncodingName(page.meta.encoding), out);
  AppendJsonField("charset_source", html::CharsetSourceName(page.meta.encoding_source), out);
  AppendJsonField("noindex", page.meta.noindex, out);
  AppendJsonField("nofollow", page.meta.nofollow, out);
  AppendJsonField("base", page.meta.base_url, out);
  AppendJsonField("links", static_cast<uint64_t>(page.links.size()), out);
  out += ",\"skipped\":{";
  const html::SkippedLinks& s = page.skipped;
  AppendJsonField("javascript", s.javascript, out);
  AppendJsonField("mailto", s.mailto, out);
  AppendJsonField("data", s.data, out);
  AppendJsonField("other_scheme", s.other_scheme, out);
  AppendJsonField("invalid", s.invalid, out);
  AppendJsonField("empty", s.empty, out);
  AppendJsonField("too_long", s.too_long, out);
  AppendJsonField("same_document", s.same_document, out);
  AppendJsonField("over_limit", s.over_limit, out);
  out += "}";
  AppendJsonField("input_truncated", page.stats.input_truncated, out);
  AppendJsonField("text_truncated", page.stats.text_truncated, out);
  AppendJsonField("start_tags_dropped", page.stats.start_tags_dropped, out);
  AppendJsonField("attributes_dropped", page.stats.attributes_dropped, out);
  out += "}\n";
  return out;
}

int RunInspectLinks(const InspectLinksArgs& args) {
  absl::StatusOr<url::Url> base = url::Url::Parse(args.base);
  if (!base.ok()) {
    std::cerr << "invalid URL: " << base.status().message() << "\n";
    return kExitUsage;
  }
  const html::ExtractOptions options;
  std::string body;
  if (!ReadBody(args.file, options.max_input_bytes + 1, body)) {
    std::cerr << "cannot read HTML file: " << args.file << "\n";
    return kExitUsage;
  }
  absl::StatusOr<html::ExtractedPage> page =
      html::ExtractPage(body, *base, args.content_type, options);
  if (!page.ok()) {
    std::cerr << "cannot extract links: " << page.status().message() << "\n";
    return kExitFailure;
  }
  if (page->stats.input_truncated) {
    std::cerr << "note: only the first " << options.max_input_bytes << " bytes were read\n";
  }
  if (args.text) {
    if (!page->text.empty()) std::cout << page->text << "\n";
    return kExitOk;
  }
  if (args.meta) {
    std::cout << MetaJson(*page);
    return kExitOk;
  }
  std::string out;
  for (const html::Link& link : page->links) {
    out = "{";
    AppendJsonField("url", link.url.href(), out);
    AppendJsonField("kind", html::LinkKindName(link.kind), out);
    AppendJsonField("nofollow", link.nofollow, out);
    AppendJsonField("text", link.anchor_text, out);
    out += "}\n";
    std::cout << out;
  }
  return kExitOk;
}

}  // namespace

void AddInspectLinksCommand(CLI::App& inspect, int* exit_code) {
  auto args = std::make_shared<InspectLinksArgs>();
  CLI::App* cmd = inspect.add_subcommand(
      "links", "List the links of an HTML page (JSON lines), or its visible text or metadata");
  cmd->footer(kFormatHelp);
  cmd->add_option("file", args->file, "The response body; - for standard input")->required();
  cmd->add_option("--base", args->base, "The URL the page was fetched from")->required();
  cmd->add_option("--content-type", args->content_type,
                  "The response's Content-Type header, e.g. \"text/html; charset=koi8-r\"");
  CLI::Option* text = cmd->add_flag("--text", args->text, "Print the visible text instead");
  CLI::Option* meta =
      cmd->add_flag("--meta", args->meta, "Print title, language, charset, robots as JSON");
  text->excludes(meta);
  cmd->callback([args, exit_code] { *exit_code = RunInspectLinks(*args); });
}

}  // namespace crawler::cli
