#include "lib/html/extract_page.h"

#include <gumbo.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "lib/html/gumbo_tree.h"
#include "lib/html/internal/ascii.h"
#include "lib/html/meta_refresh.h"
#include "lib/html/nesting_limiter.h"
#include "lib/html/robots_meta.h"
#include "lib/html/text_builder.h"

namespace crawler::html {
namespace {

using internal::EqualsIgnoreCase;
using internal::IsAsciiWhitespace;
using internal::TrimAsciiWhitespace;

constexpr size_t kNone = static_cast<size_t>(-1);

// What the URL parser strips from both ends: C0 controls and space.
std::string_view TrimC0AndSpace(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
  return s;
}

// The scheme of a URL string, lowercased, as the URL parser would read it (tabs and newlines
// are removed anywhere); empty if there is none. Used only to say why lib/url rejected it.
std::string SchemeOf(std::string_view value) {
  constexpr size_t kMaxScheme = 32;
  std::string scheme;
  for (char c : TrimC0AndSpace(value)) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c == ':') return scheme;
    const bool ok = scheme.empty() ? internal::IsAsciiAlpha(c)
                                   : internal::IsAsciiAlnum(c) || c == '+' || c == '-' || c == '.';
    if (!ok || scheme.size() == kMaxScheme) return "";
    scheme.push_back(internal::ToAsciiLower(c));
  }
  return "";
}

// True if the space-separated token list `tokens` contains `token` (ASCII case-insensitive).
bool HasToken(std::string_view tokens, std::string_view token) {
  size_t pos = 0;
  while (pos < tokens.size()) {
    while (pos < tokens.size() && IsAsciiWhitespace(tokens[pos])) ++pos;
    size_t end = pos;
    while (end < tokens.size() && !IsAsciiWhitespace(tokens[end])) ++end;
    if (end > pos && EqualsIgnoreCase(tokens.substr(pos, end - pos), token)) return true;
    pos = end;
  }
  return false;
}

const GumboVector* Children(const GumboNode* node) {
  switch (node->type) {
    case GUMBO_NODE_DOCUMENT:
      return &node->v.document.children;
    case GUMBO_NODE_ELEMENT:
    case GUMBO_NODE_TEMPLATE:
      return &node->v.element.children;
    default:
      return nullptr;
  }
}

bool IsHtmlElement(const GumboNode* node) {
  return node->type == GUMBO_NODE_ELEMENT &&
         node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

std::optional<std::string_view> Attribute(const GumboNode* element, const char* name) {
  const GumboAttribute* attribute = gumbo_get_attribute(&element->v.element.attributes, name);
  if (attribute == nullptr) return std::nullopt;
  return std::string_view(attribute->value);
}

// Visits the nodes below `root` in tree order without recursion (trees can be deep). `enter`
// returns whether to visit a node's children; `leave` runs after them, for every node entered.
// Returns the depth of the deepest node entered (root's children are at depth 1).
template <typename Enter, typename Leave>
size_t Traverse(const GumboNode* root, Enter&& enter, Leave&& leave) {
  struct Frame {
    const GumboNode* node;
    unsigned next_child;
  };
  std::vector<Frame> stack = {{root, 0}};
  size_t max_depth = 0;
  while (!stack.empty()) {
    Frame& frame = stack.back();
    const GumboVector* children = Children(frame.node);
    if (children == nullptr || frame.next_child >= children->length) {
      if (stack.size() > 1) leave(frame.node);
      stack.pop_back();
      continue;
    }
    const auto* child = static_cast<const GumboNode*>(children->data[frame.next_child++]);
    if (enter(child)) {
      stack.push_back({child, 0});
      max_depth = std::max(max_depth, stack.size() - 1);
    }
  }
  return max_depth;
}

// Elements whose text is not rendered.
bool HidesText(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HEAD: case GUMBO_TAG_TITLE: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE:
    case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_DATALIST: case GUMBO_TAG_TEMPLATE:
      return true;
    default:
      return false;
  }
}

// Elements rendered as blocks (HTML 15.3 "Non-replaced elements"), whose text is set apart.
bool IsBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY: case GUMBO_TAG_BR: case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER: case GUMBO_TAG_DD: case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE: case GUMBO_TAG_FOOTER: case GUMBO_TAG_FORM:
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5:
    case GUMBO_TAG_H6: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_HR:
    case GUMBO_TAG_LEGEND: case GUMBO_TAG_LI: case GUMBO_TAG_LISTING: case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU: case GUMBO_TAG_NAV: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_OL:
    case GUMBO_TAG_OPTION: case GUMBO_TAG_P: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION: case GUMBO_TAG_SELECT: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_THEAD: case GUMBO_TAG_TR:
    case GUMBO_TAG_UL: case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

bool HidesTextOf(const GumboNode* node) {
  const GumboTag tag = node->v.element.tag;
  // <script> and <style> hide their text in SVG too.
  if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE) return true;
  return IsHtmlElement(node) && (HidesText(tag) || Attribute(node, "hidden").has_value());
}

// The document-wide facts links depend on, gathered before the links are: the base URL and
// <meta name=robots> apply to links that come before them in the document.
struct DocumentFacts {
  const GumboNode* base = nullptr;   // first <base href>
  const GumboNode* title = nullptr;  // first HTML <title>
  std::optional<std::string_view> html_lang;
  std::optional<std::string_view> content_language;
  RobotsMeta robots;
};

DocumentFacts GatherFacts(const GumboNode* document, const ExtractOptions& options) {
  DocumentFacts facts;
  auto enter = [&](const GumboNode* node) {
    if (node->type != GUMBO_NODE_ELEMENT) return false;  // text, comments, <template> contents
    if (!IsHtmlElement(node)) return true;
    switch (node->v.element.tag) {
      case GUMBO_TAG_HTML:
        if (node->parent == document) facts.html_lang = Attribute(node, "lang");
        break;
      case GUMBO_TAG_BASE:
        if (facts.base == nullptr && Attribute(node, "href")) facts.base = node;
        break;
      case GUMBO_TAG_TITLE:
        if (facts.title == nullptr) facts.title = node;
        break;
      case GUMBO_TAG_META: {
        const std::optional<std::string_view> content = Attribute(node, "content");
        if (!content) break;
        if (const auto name = Attribute(node, "name")) {
          const std::string_view trimmed = TrimAsciiWhitespace(*name);
          for (const std::string& robots_name : options.robots_meta_names) {
            if (EqualsIgnoreCase(trimmed, robots_name)) {
              facts.robots |= ParseRobotsMeta(*content);
              break;
            }
          }
        }
        const auto http_equiv = Attribute(node, "http-equiv");
        if (http_equiv && !facts.content_language &&
            EqualsIgnoreCase(TrimAsciiWhitespace(*http_equiv), "content-language")) {
          facts.content_language = content;
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  Traverse(document, enter, [](const GumboNode*) {});
  return facts;
}

// HTML 4.2.5.3, Content-Language state: the pragma-set default language.
std::string PragmaLanguage(std::string_view content) {
  if (content.find(',') != std::string_view::npos) return "";
  content = TrimAsciiWhitespace(content);
  size_t end = 0;
  while (end < content.size() && !IsAsciiWhitespace(content[end])) ++end;
  return std::string(content.substr(0, end));
}

class LinkAndTextWalker {
 public:
  LinkAndTextWalker(const url::Url& page_url, const url::Url& base, const ExtractOptions& options,
                    ExtractedPage& page)
      : page_url_(page_url),
        base_(base),
        options_(options),
        page_(page),
        text_(options.max_text_bytes) {}

  void Run(const GumboNode* document) {
    page_.stats.tree_depth = Traverse(
        document, [this](const GumboNode* node) { return Enter(node); },
        [this](const GumboNode* node) { Leave(node); });
    page_.stats.text_truncated = text_.truncated();
    page_.text = std::move(text_).Take();
  }

 private:
  struct OpenAnchor {
    size_t link;  // index into page_.links, or kNone
    TextBuilder text;
  };

  bool Enter(const GumboNode* node) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
      case GUMBO_NODE_CDATA:
        if (hidden_ == 0) {
          text_.Append(node->v.text.text);
          if (!anchors_.empty()) anchors_.back().text.Append(node->v.text.text);
        }
        return false;
      case GUMBO_NODE_ELEMENT:
        break;
      default:
        return false;  // comments; <template> contents are not part of the document
    }
    if (HidesTextOf(node)) ++hidden_;
    if (!IsHtmlElement(node)) return true;
    const GumboTag tag = node->v.element.tag;
    SeparateText(tag);
    switch (tag) {
      case GUMBO_TAG_A: {
        size_t link = kNone;
        if (const auto href = Attribute(node, "href")) {
          link = AddLink(LinkKind::kA, *href, RelNofollow(node));
        }
        anchors_.push_back(OpenAnchor{link, TextBuilder(options_.max_anchor_text_bytes)});
        break;
      }
      case GUMBO_TAG_AREA:
        if (const auto href = Attribute(node, "href")) {
          const size_t link = AddLink(LinkKind::kArea, *href, RelNofollow(node));
          if (link != kNone) page_.links[link].anchor_text = BoundedText(Attribute(node, "alt"));
        }
        break;
      case GUMBO_TAG_FRAME:
      case GUMBO_TAG_IFRAME:
        if (const auto src = Attribute(node, "src")) {
          AddLink(tag == GUMBO_TAG_FRAME ? LinkKind::kFrame : LinkKind::kIframe, *src, false);
        }
        break;
      case GUMBO_TAG_IMG: {
        const auto alt = Attribute(node, "alt");
        if (const auto src = Attribute(node, "src")) {
          const size_t link = AddLink(LinkKind::kImg, *src, false);
          if (link != kNone) page_.links[link].anchor_text = BoundedText(alt);
        }
        // Search engines read an image's alt text as (part of) the enclosing link's text.
        if (alt && !anchors_.empty() && hidden_ == 0) {
          TextBuilder& anchor = anchors_.back().text;
          anchor.Space();
          anchor.Append(*alt);
          anchor.Space();
        }
        break;
      }
      case GUMBO_TAG_LINK:
        if (const auto rel = Attribute(node, "rel")) {
          const auto href = Attribute(node, "href");
          if (!href) break;
          const bool nofollow = HasToken(*rel, "nofollow");
          if (HasToken(*rel, "canonical")) AddLink(LinkKind::kCanonical, *href, nofollow);
          if (HasToken(*rel, "alternate") && !HasToken(*rel, "stylesheet")) {
            AddLink(LinkKind::kAlternate, *href, nofollow);
          }
        }
        break;
      case GUMBO_TAG_META: {
        const auto http_equiv = Attribute(node, "http-equiv");
        const auto content = Attribute(node, "content");
        if (!http_equiv || !content ||
            !EqualsIgnoreCase(TrimAsciiWhitespace(*http_equiv), "refresh")) {
          break;
        }
        if (const auto refresh = ParseMetaRefresh(*content); refresh && refresh->url) {
          AddLink(LinkKind::kRefresh, *refresh->url, false);
        }
        break;
      }
      default:
        break;
    }
    return true;
  }

  void Leave(const GumboNode* node) {
    if (node->type != GUMBO_NODE_ELEMENT) return;
    if (HidesTextOf(node)) --hidden_;
    if (!IsHtmlElement(node)) return;
    const GumboTag tag = node->v.element.tag;
    SeparateText(tag);
    if (tag == GUMBO_TAG_A && !anchors_.empty()) {
      OpenAnchor& anchor = anchors_.back();
      if (anchor.link != kNone) page_.links[anchor.link].anchor_text = std::move(anchor.text).Take();
      anchors_.pop_back();
    }
  }

  // Blocks set their text apart; table cells are words of a row.
  void SeparateText(GumboTag tag) {
    const bool block = IsBlock(tag);
    if (block) text_.Break();
    if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) text_.Space();
    if ((block || tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) && !anchors_.empty()) {
      anchors_.back().text.Space();
    }
  }

  static bool RelNofollow(const GumboNode* node) {
    const auto rel = Attribute(node, "rel");
    return rel && HasToken(*rel, "nofollow");
  }

  std::string BoundedText(std::optional<std::string_view> text) const {
    if (!text) return "";
    TextBuilder builder(options_.max_anchor_text_bytes);
    builder.Append(*text);
    return std::move(builder).Take();
  }

  // Resolves `value` and appends the link; returns its index, or kNone if it was skipped (and
  // counted).
  size_t AddLink(LinkKind kind, std::string_view value, bool rel_nofollow) {
    SkippedLinks& skipped = page_.skipped;
    if (page_.links.size() >= options_.max_links) {
      ++skipped.over_limit;
      return kNone;
    }
    if (value.size() > options_.max_url_bytes) {
      ++skipped.too_long;
      return kNone;
    }
    const std::string_view trimmed = TrimC0AndSpace(value);
    if (trimmed.empty()) {
      ++skipped.empty;
      return kNone;
    }
    absl::StatusOr<url::Url> resolved = url::Url::Parse(trimmed, base_);
    if (!resolved.ok()) {
      if (resolved.status().code() != absl::StatusCode::kUnimplemented) {
        ++skipped.invalid;
      } else if (const std::string scheme = SchemeOf(trimmed); scheme == "javascript") {
        ++skipped.javascript;
      } else if (scheme == "mailto") {
        ++skipped.mailto;
      } else if (scheme == "data") {
        ++skipped.data;
      } else {
        ++skipped.other_scheme;
      }
      return kNone;
    }
    const std::string_view url = resolved->href_without_fragment();
    if ((kind == LinkKind::kA || kind == LinkKind::kArea) && trimmed.front() == '#' &&
        url == page_url_.href_without_fragment()) {
      ++skipped.same_document;
      return kNone;
    }
    page_.links.push_back(Link{std::string(url), kind, rel_nofollow || page_.meta.nofollow, ""});
    return page_.links.size() - 1;
  }

  const url::Url& page_url_;
  const url::Url& base_;
  const ExtractOptions& options_;
  ExtractedPage& page_;
  TextBuilder text_;
  int hidden_ = 0;  // open elements that hide their text
  std::vector<OpenAnchor> anchors_;
};

}  // namespace

absl::StatusOr<ExtractedPage> ExtractPage(std::string_view body, const url::Url& page_url,
                                          std::string_view content_type,
                                          const ExtractOptions& options) {
  ExtractedPage page;
  if (body.size() > options.max_input_bytes) {
    body = body.substr(0, options.max_input_bytes);
    page.stats.input_truncated = true;
  }

  SniffedEncoding sniffed = SniffEncoding(body, content_type, page.stats.input_truncated);
  absl::StatusOr<std::string> decoded =
      DecodeToUtf8(body.substr(sniffed.bom_bytes), sniffed.encoding);
  if (!decoded.ok()) {
    // This C library cannot convert from the declared encoding (glibc without its gconv
    // modules). windows-1252 never fails and keeps ASCII markup, and so the links, intact.
    sniffed = SniffedEncoding{Encoding::kWindows1252, CharsetSource::kDefault, sniffed.bom_bytes};
    decoded = DecodeToUtf8(body.substr(sniffed.bom_bytes), sniffed.encoding);
  }
  std::string html = *std::move(decoded);
  page.meta.encoding = sniffed.encoding;
  page.meta.encoding_source = sniffed.source;

  const NestingLimitReport nesting = LimitNesting(
      html, NestingLimits{options.max_nesting_depth, options.max_attributes_per_element});
  page.stats.start_tags_dropped = nesting.dropped_start_tags;
  page.stats.attributes_dropped = nesting.dropped_attributes;

  absl::StatusOr<GumboTree> tree = GumboTree::Parse(
      html, options.parse_memory_base_bytes + options.parse_memory_per_input_byte * html.size());
  if (!tree.ok()) return tree.status();
  page.stats.parse_memory_bytes = tree->peak_memory_bytes();
  const GumboNode* document = tree->document();

  const DocumentFacts facts = GatherFacts(document, options);
  page.meta.noindex = facts.robots.noindex;
  page.meta.nofollow = facts.robots.nofollow;
  if (facts.html_lang) {
    page.meta.language = std::string(TrimAsciiWhitespace(*facts.html_lang));
  } else if (facts.content_language) {
    page.meta.language = PragmaLanguage(*facts.content_language);
  }
  if (facts.title != nullptr) {
    TextBuilder title(options.max_title_bytes);
    const GumboVector& children = facts.title->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type == GUMBO_NODE_TEXT || child->type == GUMBO_NODE_WHITESPACE) {
        title.Append(child->v.text.text);
      }
    }
    page.meta.title = std::move(title).Take();
  }

  std::optional<url::Url> base_element_url;
  if (facts.base != nullptr) {
    // Held to the same length limit as links: every relative link inherits it.
    const std::string_view href = *Attribute(facts.base, "href");
    absl::StatusOr<url::Url> resolved =
        href.size() <= options.max_url_bytes
            ? url::Url::Parse(TrimC0AndSpace(href), page_url)
            : absl::StatusOr<url::Url>(absl::InvalidArgumentError("base href too long"));
    if (resolved.ok()) base_element_url = *std::move(resolved);
  }
  const url::Url& base = base_element_url ? *base_element_url : page_url;
  page.meta.base_url = base.href();

  LinkAndTextWalker(page_url, base, options, page).Run(document);
  return page;
}

}  // namespace crawler::html
