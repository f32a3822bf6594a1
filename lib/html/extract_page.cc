#include "lib/html/extract_page.h"

#include <gumbo.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "lib/encoding/ascii.h"
#include "lib/html/internal/boilerplate.h"
#include "lib/html/gumbo_tree.h"
#include "lib/html/internal/html_elements.h"
#include "lib/html/internal/page_builder.h"
#include "lib/html/internal/page_text.h"
#include "lib/html/internal/token_extractor.h"
#include "lib/html/meta_refresh.h"
#include "lib/html/nesting_limiter.h"
#include "lib/html/script_navigation.h"
#include "lib/html/text_builder.h"

namespace crawler::html {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::TrimAsciiWhitespace;
using internal::DocumentFacts;
using internal::FurnitureAttributes;
using internal::HasToken;
using internal::HidesText;
using internal::IsBlock;
using internal::LinkResolver;
using internal::ScriptLinks;

constexpr size_t kNone = internal::kNoLink;

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

// Whether an attribute's name starts with "on" (Gumbo lowercases names): most elements have
// none, and then need not be asked for each handler.
bool MayHaveHandler(const GumboVector& attributes) {
  for (unsigned i = 0; i < attributes.length; ++i) {
    const char* name = static_cast<const GumboAttribute*>(attributes.data[i])->name;
    if (name[0] == 'o' && name[1] == 'n') return true;
  }
  return false;
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

bool HidesTextOf(const GumboNode* node) {
  const GumboTag tag = node->v.element.tag;
  // <script> and <style> hide their text in SVG too.
  if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE) return true;
  return IsHtmlElement(node) && (HidesText(tag) || Attribute(node, "hidden").has_value());
}

// The document-wide facts links depend on, gathered before the links are: the base URL and
// <meta name=robots> apply to links that come before them in the document.
struct GumboFacts {
  DocumentFacts document;
  const GumboNode* title = nullptr;  // first HTML <title>
};

GumboFacts GatherFacts(const GumboNode* document, const ExtractOptions& options) {
  GumboFacts facts;
  auto enter = [&](const GumboNode* node) {
    if (node->type != GUMBO_NODE_ELEMENT) return false;  // text, comments, <template> contents
    if (!IsHtmlElement(node)) return true;
    switch (node->v.element.tag) {
      case GUMBO_TAG_HTML:
        if (node->parent == document) {
          if (const auto lang = Attribute(node, "lang")) facts.document.html_lang = *lang;
        }
        break;
      case GUMBO_TAG_BASE:
        if (!facts.document.base_href) {
          if (const auto href = Attribute(node, "href")) facts.document.base_href = *href;
        }
        break;
      case GUMBO_TAG_TITLE:
        if (facts.title == nullptr) facts.title = node;
        break;
      case GUMBO_TAG_META:
        internal::NoteMeta(Attribute(node, "name"), Attribute(node, "http-equiv"),
                           Attribute(node, "content"), options, facts.document);
        break;
      default:
        break;
    }
    return true;
  };
  Traverse(document, enter, [](const GumboNode*) {});
  return facts;
}

class LinkAndTextWalker {
 public:
  LinkAndTextWalker(const url::Url& page_url, const url::Url& base, const ExtractOptions& options,
                    ExtractedPage& page)
      : options_(options),
        page_(page),
        links_(page_url, base, options, page),
        script_links_(options.max_links),
        text_(options.collect_text, options.max_text_bytes) {}

  void Run(const GumboNode* document) {
    page_.stats.tree_depth = Traverse(
        document, [this](const GumboNode* node) { return Enter(node); },
        [this](const GumboNode* node) { Leave(node); });
    script_links_.ResolveInto(links_);
    std::move(text_).TakeInto(page_);
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
    text_.Open(tag, Furniture(node));
    SeparateText(tag);
    AddScriptLinks(node);
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
    // The same decision as on entry: the content sections open around the node are the same.
    text_.Close(tag, Furniture(node));
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

  bool Furniture(const GumboNode* node) const {
    return text_.Furniture(node->v.element.tag,
                           FurnitureAttributes{Attribute(node, "role"), Attribute(node, "class"),
                                               Attribute(node, "id")});
  }

  // The element's navigation handlers, and an <a> or <area>'s javascript: href. Not those of
  // <html>, <head> and <body>: later <html> and <body> tags add their attributes to the first
  // one, and a <head> tag makes the head element or is ignored, which the tokenizer does not
  // model (and none of the three is an element a reader clicks).
  // <template> is never entered (Traverse's caller skips GUMBO_NODE_TEMPLATE).
  void AddScriptLinks(const GumboNode* node) {
    const GumboTag tag = node->v.element.tag;
    if (tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_HEAD || tag == GUMBO_TAG_BODY) return;
    const bool link = tag == GUMBO_TAG_A || tag == GUMBO_TAG_AREA;
    if (!link && !MayHaveHandler(node->v.element.attributes)) return;
    const bool rel_nofollow = link && RelNofollow(node);
    for (const std::string_view name : kNavigationHandlers) {
      // name.data() is a string literal's, so terminated.
      const GumboAttribute* handler = gumbo_get_attribute(&node->v.element.attributes, name.data());
      if (handler != nullptr) script_links_.AddHandler(handler->value, rel_nofollow);
    }
    if (link) {
      if (const auto href = Attribute(node, "href")) script_links_.AddHref(*href, rel_nofollow);
    }
  }

  static bool RelNofollow(const GumboNode* node) {
    const auto rel = Attribute(node, "rel");
    return rel && HasToken(*rel, "nofollow");
  }

  std::string BoundedText(std::optional<std::string_view> text) const {
    return html::BoundedText(text, options_.max_anchor_text_bytes);
  }

  size_t AddLink(LinkKind kind, std::string_view value, bool rel_nofollow) {
    return links_.Add(kind, value, rel_nofollow);
  }

  const ExtractOptions& options_;
  ExtractedPage& page_;
  LinkResolver links_;
  ScriptLinks script_links_;
  internal::PageText text_;
  int hidden_ = 0;  // open elements that hide their text
  std::vector<OpenAnchor> anchors_;
};

// The reference parser: Gumbo's tree, walked twice (facts, then links and text).
absl::Status ExtractWithGumbo(std::string html, const url::Url& page_url,
                              const ExtractOptions& options, ExtractedPage& page) {
  const NestingLimitReport nesting = LimitNesting(
      html, NestingLimits{options.max_nesting_depth, options.max_attributes_per_element});
  page.stats.start_tags_dropped = nesting.dropped_start_tags;
  page.stats.attributes_dropped = nesting.dropped_attributes;

  absl::StatusOr<GumboTree> tree = GumboTree::Parse(
      html, options.parse_memory_base_bytes + options.parse_memory_per_input_byte * html.size());
  if (!tree.ok()) return tree.status();
  page.stats.parse_memory_bytes = tree->peak_memory_bytes();
  const GumboNode* document = tree->document();

  const GumboFacts facts = GatherFacts(document, options);
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
  const url::Url base = internal::ApplyFacts(facts.document, page_url, options, page);
  LinkAndTextWalker(page_url, base, options, page).Run(document);
  return absl::OkStatus();
}

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

  if (options.parser == ExtractOptions::Parser::kTokenizer) {
    ExtractedPage tokenized = page;
    if (internal::ExtractWithTokenizer(html, page_url, options, tokenized)) return tokenized;
  }
  if (absl::Status status = ExtractWithGumbo(std::move(html), page_url, options, page);
      !status.ok()) {
    return status;
  }
  return page;
}

}  // namespace crawler::html
