// SiteModel's scripted sites (site_model.h, docs/websim.md "Scripted sites"): which hosts and
// links are delivered by script, the scripts and data that put those links into the DOM, and the
// hostile pages.
//
// What a scripted link must not give away without a browser: a static HTML extractor (lib/html,
// scripting disabled) reads <a href> and the literal targets of click handlers, nothing inside
// <script> or data-* attributes. Beyond that, no script text and no attribute holds a scripted
// link's URL as a literal, so that a crawler grepping pages for URL-shaped strings does not find
// them either: document.write reverses its href at run time, the router's routes are base64 JSON,
// and the fetched links live only in /_links/<id>.json.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "tools/websim/site_model.h"
#include "tools/websim/site_model_internal.h"

namespace crawler::websim {
namespace {

constexpr absl::string_view kLinksJsonPrefix = "/_links/";

constexpr absl::string_view kJavascriptType = "text/javascript; charset=utf-8";
constexpr absl::string_view kHtmlType = "text/html; charset=utf-8";

// The forms of a link to a script-only page, drawn uniformly per link.
constexpr std::array<LinkDelivery, 3> kRenderedForms = {
    LinkDelivery::kDocumentWrite, LinkDelivery::kFetchedJson, LinkDelivery::kRouter};
// Of the other links of a scripted page, one in this many (if followable) is a button.
constexpr uint64_t kButtonOneIn = 4;

// The inline script of a page with kFetchedJson links: fetches the page's JSON (its path built
// from data-page, so the script holds none) and appends an <a> per link to the list.
constexpr absl::string_view kFetchScript =
    "(function () {\n"
    "  var list = document.getElementById('websim-fetched');\n"
    "  fetch('/_links/' + list.getAttribute('data-page') + '.json')\n"
    "    .then(function (response) { return response.json(); })\n"
    "    .then(function (data) {\n"
    "      data.links.forEach(function (link) {\n"
    "        var item = document.createElement('li');\n"
    "        var a = document.createElement('a');\n"
    "        a.setAttribute('href', link.href);\n"
    "        if (link.rel) a.setAttribute('rel', link.rel);\n"
    "        a.textContent = link.text;\n"
    "        item.appendChild(a);\n"
    "        list.appendChild(item);\n"
    "      });\n"
    "    });\n"
    "})();\n";

constexpr absl::string_view kAppScript =
    "// websim's client-side router (docs/websim.md, \"Scripted sites\"): builds the page's menu\n"
    "// from the base64 JSON in #websim-app[data-routes] and shows same-origin menu entries with\n"
    "// history.pushState instead of loading them.\n"
    "(function () {\n"
    "  'use strict';\n"
    "  var nav = document.getElementById('websim-app');\n"
    "  if (!nav) return;\n"
    "  var routes = JSON.parse(atob(nav.getAttribute('data-routes'))).links;\n"
    "  var view = document.createElement('p');\n"
    "  view.id = 'websim-view';\n"
    "  function show(href) { view.textContent = 'route ' + href; }\n"
    "  var menu = document.createElement('ul');\n"
    "  routes.forEach(function (route) {\n"
    "    var item = document.createElement('li');\n"
    "    var a = document.createElement('a');\n"
    "    a.setAttribute('href', route.href);\n"
    "    if (route.rel) a.setAttribute('rel', route.rel);\n"
    "    a.textContent = route.text;\n"
    "    a.addEventListener('click', function (event) {\n"
    "      if (a.origin !== location.origin) return;\n"
    "      event.preventDefault();\n"
    "      history.pushState({href: a.href}, '', a.href);\n"
    "      show(a.href);\n"
    "    });\n"
    "    item.appendChild(a);\n"
    "    menu.appendChild(item);\n"
    "  });\n"
    "  nav.appendChild(menu);\n"
    "  nav.appendChild(view);\n"
    "  window.addEventListener('popstate', function () { show(location.href); });\n"
    "  show(location.href);\n"
    "})();\n";

// `text` as a single-quoted JavaScript string literal. '<' is escaped too, so the literal can
// never close its <script> element or open an HTML comment inside it.
std::string JsQuoted(absl::string_view text) {
  std::string out = "'";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '<' || u < 0x20 || u >= 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

// `text` as a JSON string (RFC 8259 §7).
void AppendJsonString(std::string* out, absl::string_view text) {
  out->push_back('"');
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20 || c == '<') {
      absl::StrAppendFormat(out, "\\u%04x", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

std::string AnchorText(const OutLink& link) {
  return absl::StrCat("page ", link.target.page, " of h", link.target.host);
}

// {"links":[...]} of the links with `delivery`, in document order.
std::string LinksJson(const std::vector<OutLink>& links, LinkDelivery delivery) {
  std::string out = "{\"links\":[";
  bool first = true;
  for (const OutLink& link : links) {
    if (link.delivery != delivery) continue;
    if (!first) out.push_back(',');
    first = false;
    out.append("{\"href\":");
    AppendJsonString(&out, link.href);
    out.append(",\"text\":");
    AppendJsonString(&out, AnchorText(link));
    if (link.nofollow) out.append(",\"rel\":\"nofollow\"");
    out.push_back('}');
  }
  out.append("]}\n");
  return out;
}

std::optional<int> IdOfLinksJson(absl::string_view target) {
  if (!absl::ConsumePrefix(&target, kLinksJsonPrefix) || !absl::ConsumeSuffix(&target, ".json")) {
    return std::nullopt;
  }
  int id = 0;
  // Only the spelling LinksJsonPath writes: digits without leading zeros.
  if (target.empty() || target.size() > 9 || !absl::c_all_of(target, absl::ascii_isdigit) ||
      !absl::SimpleAtoi(target, &id) || absl::StrCat(id) != target) {
    return std::nullopt;
  }
  return id;
}

// What each hostile page does, in its own <script> (a title and the code).
struct HostileScript {
  absl::string_view title;
  std::string code;
};

HostileScript HostileScriptOf(HostileKind kind, int probe_port) {
  switch (kind) {
    case HostileKind::kEndlessLoop:
      return {"endless loop", "while (true) {}\n"};
    case HostileKind::kMemoryHog:
      // Touched (filled) arrays, so the memory is committed, not only reserved; the event loop
      // stays free, so this is a memory limit's case, not a CPU timeout's.
      return {"memory hog",
              "var hog = [];\n"
              "setInterval(function () {\n"
              "  for (var i = 0; i < 64; i++) hog.push(new Float64Array(1 << 17).fill(hog.length));\n"
              "}, 0);\n"};
    case HostileKind::kPopupStorm:
      return {"pop-up storm",
              "function storm() {\n"
              "  for (var i = 0; i < 50; i++) window.open('/_hostile/popup.html', '_blank');\n"
              "}\n"
              "storm();\n"
              "setInterval(storm, 10);\n"};
    case HostileKind::kMetadataFetch:
      return {"metadata fetch",
              "fetch('http://169.254.169.254/latest/meta-data/')\n"
              "  .then(function (r) { return r.text(); })\n"
              "  .then(function (t) { document.getElementById('out').textContent = t; })\n"
              "  .catch(function (e) { document.getElementById('out').textContent = String(e); });\n"};
    case HostileKind::kLoopbackFetch: {
      const std::string port = probe_port == 0 ? std::string("(location.port || '80')")
                                               : absl::StrCat("'", probe_port, "'");
      return {"loopback fetch",
              absl::StrCat(
                  "fetch('http://127.0.0.1:' + ", port, " + '/')\n"
                  "  .then(function (r) { return r.text(); })\n"
                  "  .then(function (t) { document.getElementById('out').textContent = t; })\n"
                  "  .catch(function (e) { document.getElementById('out').textContent = String(e); });\n")};
    }
    case HostileKind::kAlert:
      return {"alert dialogs",
              "alert('websim: hostile alert');\n"
              "confirm('websim: hostile confirm');\n"
              "prompt('websim: hostile prompt');\n"
              "setInterval(function () { alert('websim: hostile alert again'); }, 1000);\n"};
    case HostileKind::kBeforeUnload:
      return {"beforeunload",
              "window.addEventListener('beforeunload', function (event) {\n"
              "  event.preventDefault();\n"
              "  event.returnValue = 'websim: stay';\n"
              "  return 'websim: stay';\n"
              "});\n"};
    case HostileKind::kNeverLoads:
      return {"never loads", ""};
  }
  return {"", ""};
}

}  // namespace

absl::string_view LinkDeliveryName(LinkDelivery delivery) {
  switch (delivery) {
    case LinkDelivery::kStatic: return "static";
    case LinkDelivery::kButton: return "button";
    case LinkDelivery::kDocumentWrite: return "document-write";
    case LinkDelivery::kFetchedJson: return "fetched-json";
    case LinkDelivery::kRouter: return "router";
  }
  return "unknown";
}

bool NeedsRendering(LinkDelivery delivery) {
  return delivery != LinkDelivery::kStatic && delivery != LinkDelivery::kButton;
}

absl::string_view HostilePath(HostileKind kind) {
  switch (kind) {
    case HostileKind::kEndlessLoop: return "/_hostile/loop.html";
    case HostileKind::kMemoryHog: return "/_hostile/memory.html";
    case HostileKind::kPopupStorm: return "/_hostile/popups.html";
    case HostileKind::kMetadataFetch: return "/_hostile/metadata.html";
    case HostileKind::kLoopbackFetch: return "/_hostile/loopback.html";
    case HostileKind::kAlert: return "/_hostile/alert.html";
    case HostileKind::kBeforeUnload: return "/_hostile/beforeunload.html";
    case HostileKind::kNeverLoads: return "/_hostile/never-loads.html";
  }
  return "/_hostile/";
}

bool SiteModel::IsScripted(int host) const {
  return options_.scripted_host_fraction > 0 &&
         UnitInterval(Hash(options_.seed, kSaltScriptedHost, host)) <
             options_.scripted_host_fraction;
}

bool SiteModel::HasHostilePages(int host) const {
  return IsScripted(host) && options_.hostile_host_fraction > 0 &&
         UnitInterval(Hash(options_.seed, kSaltHostileHost, host)) < options_.hostile_host_fraction;
}

bool SiteModel::IsScriptOnly(PageRef page) const {
  return page.page != 0 && IsScripted(page.host) &&
         UnitInterval(Hash(options_.seed, kSaltScriptOnly, page.host, page.page)) >=
             options_.scripted_static_page_fraction;
}

LinkDelivery SiteModel::DeliveryOf(PageRef page, size_t index, const OutLink& link) const {
  const uint64_t h = Hash(options_.seed, kSaltScriptedLink,
                          (uint64_t{static_cast<uint32_t>(page.host)} << 32) |
                              static_cast<uint32_t>(page.page),
                          index);
  if (IsScriptOnly(link.target)) return kRenderedForms[h % kRenderedForms.size()];
  // A button has no rel, so a static extractor would follow it: a nofollow link stays an <a>.
  return h % kButtonOneIn == 0 && !link.nofollow ? LinkDelivery::kButton : LinkDelivery::kStatic;
}

std::string SiteModel::LinksJsonPath(PageRef page) {
  return absl::StrCat(kLinksJsonPrefix, page.page, ".json");
}

std::string SiteModel::RenderLinksJson(PageRef page) const {
  return LinksJson(LinksOf(page), LinkDelivery::kFetchedJson);
}

std::string SiteModel::RenderAppScript() { return std::string(kAppScript); }

std::string SiteModel::HostileUrlOf(HostilePage page) const {
  return absl::StrCat("http://", HostName(page.host), HostilePath(page.kind));
}

void SiteModel::AppendScriptedLink(std::string* out, const OutLink& link) const {
  switch (link.delivery) {
    case LinkDelivery::kButton: {
      // The attribute is double-quoted; JsQuoted leaves only '&' to escape in it.
      const std::string code = absl::StrCat("location.href=", JsQuoted(link.href));
      absl::StrAppend(out, "<li><button type=\"button\" onclick=\"",
                      absl::StrReplaceAll(code, {{"&", "&amp;"}, {"\"", "&quot;"}}), "\">",
                      AnchorText(link), "</button></li>\n");
      return;
    }
    case LinkDelivery::kDocumentWrite: {
      // The href as the markup needs it ("&amp;"), reversed: the script holds no URL-shaped
      // string, the browser writes the real one.
      std::string escaped;
      AppendEscaped(&escaped, link.href);
      std::reverse(escaped.begin(), escaped.end());
      absl::StrAppend(out, "<li><script>document.write('<a href=\"' + ", JsQuoted(escaped),
                      ".split('').reverse().join('') + '\"",
                      link.nofollow ? " rel=\"nofollow\"" : "", ">", AnchorText(link),
                      "</a>');</script></li>\n");
      return;
    }
    default:
      return;  // kFetchedJson and kRouter: RenderScriptedTail
  }
}

std::string SiteModel::RenderScriptedTail(PageRef page, const std::vector<OutLink>& links) const {
  std::string out;
  const auto has = [&](LinkDelivery delivery) {
    return std::any_of(links.begin(), links.end(),
                       [&](const OutLink& link) { return link.delivery == delivery; });
  };
  if (has(LinkDelivery::kFetchedJson)) {
    absl::StrAppend(&out, "<ul id=\"websim-fetched\" data-page=\"", page.page, "\"></ul>\n<script>",
                    kFetchScript, "</script>\n");
  }
  if (has(LinkDelivery::kRouter)) {
    absl::StrAppend(&out, "<nav id=\"websim-app\" data-routes=\"",
                    absl::Base64Escape(LinksJson(links, LinkDelivery::kRouter)),
                    "\"></nav>\n<script src=\"", kAppScriptPath, "\" defer></script>\n");
  }
  if (page.page == 0 && HasHostilePages(page.host)) {
    out.append("<ul class=\"websim-hostile\">\n");
    for (int k = 0; k < kNumHostileKinds; ++k) {
      const HostileKind kind = static_cast<HostileKind>(k);
      absl::StrAppend(&out, "<li><a href=\"", HostilePath(kind), "\">hostile: ",
                      HostileScriptOf(kind, 0).title, "</a></li>\n");
    }
    out.append("</ul>\n");
  }
  return out;
}

std::string SiteModel::RenderHostilePage(HostileKind kind) const {
  const HostileScript script = HostileScriptOf(kind, options_.hostile_probe_port);
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>websim hostile: ",
      script.title, "</title>\n</head>\n<body>\n<h1>websim hostile: ", script.title,
      "</h1>\n<p id=\"out\">A page that a crawler's browser must survive.</p>\n");
  if (kind == HostileKind::kNeverLoads) {
    // A parser-blocking script at the end of the body: the content above is in the DOM, but
    // neither DOMContentLoaded nor load fires before websim answers, kStallDelay later.
    absl::StrAppend(&out, "<script src=\"", kStallScriptPath, "\"></script>\n");
  } else {
    absl::StrAppend(&out, "<script>\n", script.code, "</script>\n");
  }
  if (kind == HostileKind::kMemoryHog) {
    // A script that arrives late keeps the page loading (as a page still loading its ads is), so
    // a renderer waiting for the network to settle lets the hog run for its whole time limit.
    absl::StrAppend(&out, "<script async src=\"", kStallScriptPath, "\"></script>\n");
  }
  out.append("</body>\n</html>\n");
  return out;
}

std::optional<SiteResponse> SiteModel::RespondScripted(int host, absl::string_view target) const {
  if (!IsScripted(host)) return std::nullopt;
  SiteResponse response;
  response.latency = LatencyOf(host);
  if (target == kAppScriptPath) {
    response.content_type = std::string(kJavascriptType);
    response.body = RenderAppScript();
    // The same script for every page of the host, as a site's bundle is.
    response.headers.emplace_back("Cache-Control", "public, max-age=86400");
    return response;
  }
  if (std::optional<int> id = IdOfLinksJson(target)) {
    if (*id >= num_page_ids() || (focus_ != nullptr && *id >= PagesOf(host))) return std::nullopt;
    response.content_type = "application/json";
    response.body = RenderLinksJson(PageRef{host, *id});
    return response;
  }
  if (!HasHostilePages(host) || !absl::StartsWith(target, "/_hostile/")) return std::nullopt;
  response.content_type = std::string(kHtmlType);
  for (int k = 0; k < kNumHostileKinds; ++k) {
    const HostileKind kind = static_cast<HostileKind>(k);
    if (target == HostilePath(kind)) {
      response.body = RenderHostilePage(kind);
      return response;
    }
  }
  if (target == kStallScriptPath) {
    response.content_type = std::string(kJavascriptType);
    response.body = "// websim: answered only after SiteModel::kStallDelay\n";
    response.latency += kStallDelay;
    return response;
  }
  if (target == kPopupPath) {
    response.body = "<!DOCTYPE html>\n<html><head><title>websim pop-up</title></head>"
                    "<body><p>pop-up</p></body></html>\n";
    return response;
  }
  return std::nullopt;
}

}  // namespace crawler::websim
