#include "lib/html/internal/token_extractor.h"

#include <gumbo.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/encoding/ascii.h"
#include "lib/html/internal/char_refs.h"
#include "lib/html/internal/html_elements.h"
#include "lib/html/internal/html_scanner.h"
#include "lib/html/internal/page_builder.h"
#include "lib/html/internal/page_text.h"
#include "lib/html/meta_refresh.h"
#include "lib/html/nesting_limiter.h"
#include "lib/html/script_navigation.h"
#include "lib/html/text_builder.h"

namespace crawler::html::internal {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::TrimAsciiWhitespace;

// The raw value of the first attribute named `name` (lowercase), as the tokenizer keeps the
// first of duplicates. Gumbo 0.10 drops a U+0000 that starts an attribute name.
std::optional<std::string_view> RawAttribute(const ScannedTag& tag, std::string_view name) {
  for (const ScannedAttribute& a : *tag.attributes) {
    std::string_view a_name = a.name;
    if (!a_name.empty() && a_name.front() == '\0') a_name.remove_prefix(1);
    if (a_name.size() == name.size() && EqualsIgnoreCase(a_name, name)) return a.value;
  }
  return std::nullopt;
}

bool HasAttribute(const ScannedTag& tag, std::string_view name) {
  return RawAttribute(tag, name).has_value();
}

// Whether an attribute's name starts with "on": most elements have none, and then need not be
// asked for each handler.
bool MayHaveHandler(const ScannedTag& tag) {
  for (const ScannedAttribute& a : *tag.attributes) {
    std::string_view name = a.name;
    if (!name.empty() && name.front() == '\0') name.remove_prefix(1);
    if (name.size() >= 2 && encoding::ToAsciiLower(name[0]) == 'o' &&
        encoding::ToAsciiLower(name[1]) == 'n') {
      return true;
    }
  }
  return false;
}

// The value with character references decoded (views into `scratch` or the input).
std::optional<std::string_view> Attribute(const ScannedTag& tag, std::string_view name,
                                          std::string& scratch) {
  const std::optional<std::string_view> raw = RawAttribute(tag, name);
  if (!raw) return std::nullopt;
  if (!NeedsDecoding(*raw)) return raw;
  scratch.clear();
  AppendDecoded(*raw, RefContext::kAttribute, scratch);
  return std::string_view(scratch);
}

std::optional<std::string> AttributeString(const ScannedTag& tag, std::string_view name) {
  std::string scratch;
  const std::optional<std::string_view> value = Attribute(tag, name, scratch);
  if (!value) return std::nullopt;
  return std::string(*value);
}

// Start tag data (OpenElementInfo::user): bit 0 the hidden attribute, bit 1 furniture by its
// attributes (boilerplate.h), the rest 1 + the index of the element's entry in
// Extractor::anchor_sources_ (an <a>).
constexpr uint32_t kHiddenBit = 1;
constexpr uint32_t kFurnitureBit = 2;
constexpr int kAnchorShift = 2;

class Extractor : public ScanListener {
 public:
  Extractor(std::string_view html, const ExtractOptions& options, ExtractedPage& page)
      : html_(html),
        options_(options),
        page_(page),
        text_(options.collect_text, options.max_text_bytes),
        // Half the parser's budget: past it Gumbo decides (and may fail the page).
        max_tree_bytes_((options.parse_memory_base_bytes +
                         options.parse_memory_per_input_byte * html.size()) /
                        2) {}

  // Whether the page needs Gumbo after the scan (see token_extractor.h).
  bool gave_up() const { return gave_up_; }

  // Resolves the link references now that the base URL and robots are known.
  void Finish(const url::Url& page_url) {
    const url::Url base = ApplyFacts(facts_, page_url, options_, page_);
    LinkResolver resolver(page_url, base, options_, page_);
    for (Reference& ref : references_) {
      const size_t link = resolver.Add(ref.kind, ref.value, ref.rel_nofollow);
      if (link == kNoLink) continue;
      page_.links[link].anchor_text =
          ref.anchor != kNoAnchor ? std::move(anchors_[ref.anchor]).Take() : std::move(ref.alt);
    }
    script_links_.ResolveInto(resolver);
    page_.meta.title = std::move(title_).Take();
    std::move(text_).TakeInto(page_);
  }

  // ---- ScanListener ----

  uint32_t StartTagData(const ScannedTag& tag) override {
    uint32_t user = HasAttribute(tag, "hidden") ? kHiddenBit : 0;
    if (options_.collect_text) {
      // The attribute rules only: the tag rules depend on where the element is pushed.
      const std::optional<std::string> role = AttributeString(tag, "role");
      const std::optional<std::string> class_list = AttributeString(tag, "class");
      const std::optional<std::string> id = AttributeString(tag, "id");
      if ((role || class_list || id) &&
          IsFurniture(GUMBO_TAG_UNKNOWN, FurnitureAttributes{role, class_list, id}, false)) {
        user |= kFurnitureBit;
      }
    }
    if (tag.tag == GUMBO_TAG_A) {
      std::optional<std::string> href = AttributeString(tag, "href");
      anchor_sources_.push_back(AnchorSource{std::move(href), RelNofollow(tag)});
      user |= static_cast<uint32_t>(anchor_sources_.size()) << kAnchorShift;
    }
    return user;
  }

  void StartTag(const ScannedTag& tag, Insertion insertion) override {
    // Every HTML element inserted, in token order, which is tree order here (and clones only
    // repeat their original's targets: ScriptLinks).
    if (insertion == Insertion::kHtml) AddScriptLinks(tag);
    if (insertion == Insertion::kDropped || tag.tag == GUMBO_TAG_UNKNOWN) return;
    // <html> and <body> tags after the first add their attributes to the element.
    if (tag.tag == GUMBO_TAG_HTML) {
      if (!facts_.html_lang) facts_.html_lang = AttributeString(tag, "lang");
      if (HasAttribute(tag, "hidden")) GiveUp();  // hides the text before it too
      return;
    }
    if (tag.tag == GUMBO_TAG_BODY) {
      if (HasAttribute(tag, "hidden")) GiveUp();
      return;
    }
    if (insertion != Insertion::kHtml) return;
    ++tree_nodes_;
    // Void and raw text elements: not pushed, so the pushes do not see them.
    switch (tag.tag) {
      case GUMBO_TAG_IMG:
      case GUMBO_TAG_IMAGE: {  // <image> is <img> to the tree builder
        std::string scratch;
        const std::optional<std::string_view> alt = Attribute(tag, "alt", scratch);
        if (const auto src = AttributeString(tag, "src")) {
          AddReference(LinkKind::kImg, *src, false, BoundedText(alt));
        }
        // Search engines read an image's alt text as (part of) the enclosing link's text.
        if (alt && !open_anchors_.empty() && !Hidden()) {
          if (TextBuilder* anchor = InnermostAnchor()) {
            anchor->Space();
            anchor->Append(*alt);
            anchor->Space();
          }
        }
        break;
      }
      case GUMBO_TAG_AREA:
        if (const auto href = AttributeString(tag, "href")) {
          std::string scratch;
          AddReference(LinkKind::kArea, *href, RelNofollow(tag),
                       BoundedText(Attribute(tag, "alt", scratch)));
        }
        break;
      case GUMBO_TAG_FRAME:
      case GUMBO_TAG_IFRAME:
        if (const auto src = AttributeString(tag, "src")) {
          AddReference(tag.tag == GUMBO_TAG_FRAME ? LinkKind::kFrame : LinkKind::kIframe, *src,
                       false, "");
        }
        break;
      case GUMBO_TAG_LINK:
        if (const auto rel = AttributeString(tag, "rel")) {
          const auto href = AttributeString(tag, "href");
          if (!href) break;
          const bool nofollow = HasToken(*rel, "nofollow");
          if (HasToken(*rel, "canonical")) {
            AddReference(LinkKind::kCanonical, *href, nofollow, "");
          }
          if (HasToken(*rel, "alternate") && !HasToken(*rel, "stylesheet")) {
            AddReference(LinkKind::kAlternate, *href, nofollow, "");
          }
        }
        break;
      case GUMBO_TAG_META: {
        const auto content = AttributeString(tag, "content");
        const auto http_equiv = AttributeString(tag, "http-equiv");
        NoteMeta(AttributeString(tag, "name"), http_equiv, content, options_, facts_);
        if (!http_equiv || !content ||
            !EqualsIgnoreCase(TrimAsciiWhitespace(*http_equiv), "refresh")) {
          break;
        }
        if (const auto refresh = ParseMetaRefresh(*content); refresh && refresh->url) {
          AddReference(LinkKind::kRefresh, std::string(*refresh->url), false, "");
        }
        break;
      }
      case GUMBO_TAG_BASE:
        if (!facts_.base_href) facts_.base_href = AttributeString(tag, "href");
        break;
      case GUMBO_TAG_TITLE:
        in_first_title_ = !seen_title_;
        seen_title_ = true;
        break;
      case GUMBO_TAG_BR:
      case GUMBO_TAG_HR:
      case GUMBO_TAG_XMP:
      case GUMBO_TAG_PLAINTEXT:
        SeparateText(tag.tag);
        break;
      default:
        break;
    }
  }

  void EndTag(const ScannedTag& tag, Insertion insertion) override {
    // </p> without a p to close inserts an empty one; </br> is <br>.
    if (insertion == Insertion::kHtml) {
      ++tree_nodes_;
      SeparateText(tag.tag);
    }
  }

  void Text(size_t begin, size_t end, TextMode mode, bool in_head, bool foreign) override {
    ++tree_nodes_;
    if (in_head || Hidden()) return;
    if (!options_.collect_text && open_anchors_.empty()) return;  // nothing would keep it
    // The tokenizer is in its data state (kRcdata: a title or textarea the tree builder
    // ignores, whose "&lt;" LimitNesting wrote); the tree builder drops U+0000 but in foreign
    // content, where it is U+FFFD.
    AppendText(Decode(begin, end, foreign ? RefContext::kRcdata : RefContext::kText,
                      mode == TextMode::kData));
  }

  void RawText(GumboTag tag, size_t begin, size_t end) override {
    ++tree_nodes_;
    switch (tag) {
      case GUMBO_TAG_TITLE:
        if (in_first_title_) {
          title_.Append(Decode(begin, end, RefContext::kRcdata, false));
          in_first_title_ = false;
        }
        break;
      case GUMBO_TAG_XMP:
        if (!Hidden()) AppendText(Decode(begin, end, RefContext::kRaw, true));
        SeparateText(tag);
        break;
      case GUMBO_TAG_PLAINTEXT:
        if (!Hidden()) AppendText(Decode(begin, end, RefContext::kRaw, true));
        break;
      default:
        break;  // script, style, textarea, iframe, noembed, noframes, template: hidden
    }
  }

  void Cdata(size_t begin, size_t end) override {
    ++tree_nodes_;
    if (!Hidden()) AppendText(Decode(begin, end, RefContext::kRaw, true));
  }

  void Pushed(const OpenElementInfo& element, bool /*implied*/, bool /*clone*/) override {
    ++tree_nodes_;
    const bool html = element.ns == Ns::kHtml;
    const bool hides = (element.tag == GUMBO_TAG_SCRIPT || element.tag == GUMBO_TAG_STYLE) ||
                       (html && (HidesText(element.tag) || (element.user & kHiddenBit) != 0));
    if (hides) ++hidden_;
    if (!html) return;
    text_.Open(element.tag, Furniture(element));
    SeparateText(element.tag);
    if (element.tag != GUMBO_TAG_A) return;
    size_t anchor = kNoAnchor;
    const uint32_t source = element.user >> kAnchorShift;
    if (source != 0 && anchor_sources_[source - 1].href) {
      // A clone made by "reconstruct the active formatting elements" is a new <a> in the tree,
      // with the same attributes: another link.
      const AnchorSource& a = anchor_sources_[source - 1];
      anchor = anchors_.size();
      anchors_.emplace_back(options_.max_anchor_text_bytes);
      references_.push_back(Reference{LinkKind::kA, *a.href, a.rel_nofollow, anchor, ""});
    }
    open_anchors_.push_back(anchor);
  }

  void Popped(const OpenElementInfo& element) override {
    const bool html = element.ns == Ns::kHtml;
    const bool hides = (element.tag == GUMBO_TAG_SCRIPT || element.tag == GUMBO_TAG_STYLE) ||
                       (html && (HidesText(element.tag) || (element.user & kHiddenBit) != 0));
    if (hides) --hidden_;
    if (!html) return;
    // The same decision as when pushed: the content sections open around it are the same.
    text_.Close(element.tag, Furniture(element));
    SeparateText(element.tag);
    if (element.tag == GUMBO_TAG_A && !open_anchors_.empty()) open_anchors_.pop_back();
  }

  void Reordered() override { GiveUp(); }
  void Unmodelled() override { GiveUp(); }

  bool Stop() const override {
    return gave_up_ || tree_nodes_ * kBytesPerNode > max_tree_bytes_;
  }

  bool over_memory() const { return tree_nodes_ * kBytesPerNode > max_tree_bytes_; }

 private:
  static constexpr size_t kNoAnchor = static_cast<size_t>(-1);
  // What a node of Gumbo's tree costs, generously (a GumboNode with its vectors is ~150 bytes,
  // cloned attributes come on top): the estimate only has to tell ordinary pages, far below
  // the budget, from those that should let Gumbo decide.
  static constexpr size_t kBytesPerNode = 256;

  // An <a> start tag's link attributes, kept for its clones.
  struct AnchorSource {
    std::optional<std::string> href;
    bool rel_nofollow;
  };

  // A link reference in document order, resolved in Finish.
  struct Reference {
    LinkKind kind;
    std::string value;  // attribute value, references decoded
    bool rel_nofollow;
    size_t anchor;    // index into anchors_, or kNoAnchor
    std::string alt;  // anchor text of <img> and <area>
  };

  void GiveUp() { gave_up_ = true; }

  bool Hidden() const { return hidden_ > 0; }

  TextBuilder* InnermostAnchor() {
    const size_t anchor = open_anchors_.back();
    return anchor == kNoAnchor ? nullptr : &anchors_[anchor];
  }

  bool Furniture(const OpenElementInfo& element) const {
    return (element.user & kFurnitureBit) != 0 || text_.Furniture(element.tag, {});
  }

  static bool RelNofollow(const ScannedTag& tag) {
    std::string scratch;
    const auto rel = Attribute(tag, "rel", scratch);
    return rel && HasToken(*rel, "nofollow");
  }

  std::string BoundedText(std::optional<std::string_view> text) const {
    return html::BoundedText(text, options_.max_anchor_text_bytes);
  }

  // As the Gumbo path: the navigation handlers of any element but <html>, <head> and <body>
  // (which the model does not follow: later tags merge attributes into the first, a <head> tag
  // may be ignored) and <template> (whose element and contents Gumbo keeps out of the tree),
  // and an <a> or <area>'s javascript: href.
  void AddScriptLinks(const ScannedTag& tag) {
    switch (tag.tag) {
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_HEAD:
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_TEMPLATE:
        return;
      default:
        break;
    }
    const bool link = tag.tag == GUMBO_TAG_A || tag.tag == GUMBO_TAG_AREA;
    if (!link && !MayHaveHandler(tag)) return;
    const bool rel_nofollow = link && RelNofollow(tag);
    std::string scratch;
    for (const std::string_view name : kNavigationHandlers) {
      if (const auto code = Attribute(tag, name, scratch)) {
        script_links_.AddHandler(*code, rel_nofollow);
      }
    }
    if (link) {
      if (const auto href = Attribute(tag, "href", scratch)) {
        script_links_.AddHref(*href, rel_nofollow);
      }
    }
  }

  void AddReference(LinkKind kind, std::string value, bool rel_nofollow, std::string alt) {
    references_.push_back(Reference{kind, std::move(value), rel_nofollow, kNoAnchor,
                                    std::move(alt)});
  }

  // Blocks set their text apart; table cells are words of a row.
  void SeparateText(GumboTag tag) {
    const bool block = IsBlock(tag);
    const bool cell = tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH;
    if (block) text_.Break();
    if (cell) text_.Space();
    if ((block || cell) && !open_anchors_.empty()) {
      if (TextBuilder* anchor = InnermostAnchor()) anchor->Space();
    }
  }

  void AppendText(std::string_view text) {
    text_.Append(text);
    if (!open_anchors_.empty()) {
      if (TextBuilder* anchor = InnermostAnchor()) anchor->Append(text);
    }
  }

  // html_[begin, end) as the parser reads it: references and special characters as `context`
  // says (char_refs.h); `defang`: each '<' that could open markup is a space, as LimitNesting
  // makes it in text the scanner reads without looking for markup (kData text of raw text
  // elements, xmp, plaintext, CDATA). A view into the input or scratch_.
  std::string_view Decode(size_t begin, size_t end, RefContext context, bool defang) {
    std::string_view raw = html_.substr(begin, end - begin);
    defang = defang && raw.find('<') != std::string_view::npos;
    if (!defang && !NeedsDecoding(raw)) return raw;
    if (defang) {
      defanged_.assign(raw);
      for (size_t i = 0; i < defanged_.size(); ++i) {
        if (defanged_[i] == '<' && CouldOpenMarkup(html_, begin + i)) defanged_[i] = ' ';
      }
      raw = defanged_;
    }
    scratch_.clear();
    AppendDecoded(raw, context, scratch_);
    return scratch_;
  }

  const std::string_view html_;
  const ExtractOptions& options_;
  ExtractedPage& page_;
  PageText text_;
  const size_t max_tree_bytes_;

  DocumentFacts facts_;
  TextBuilder title_{options_.max_title_bytes};
  bool seen_title_ = false;      // an HTML <title> was inserted
  bool in_first_title_ = false;  // its content comes next
  std::vector<AnchorSource> anchor_sources_;
  std::vector<Reference> references_;
  ScriptLinks script_links_{options_.max_links};
  std::vector<TextBuilder> anchors_;   // anchor text of the <a> references
  std::vector<size_t> open_anchors_;   // the open HTML <a> elements: index into anchors_
  int hidden_ = 0;                     // open elements that hide their text
  size_t tree_nodes_ = 0;              // nodes Gumbo's tree would hold, about
  bool gave_up_ = false;
  std::string scratch_;
  std::string defanged_;
};

}  // namespace

bool ExtractWithTokenizer(std::string_view html, const url::Url& page_url,
                          const ExtractOptions& options, ExtractedPage& page) {
  Extractor extractor(html, options, page);
  const ScanReport scan = ScanHtml(
      html, NestingLimits{options.max_nesting_depth, options.max_attributes_per_element},
      extractor);
  if (extractor.gave_up() || extractor.over_memory()) return false;
  page.stats.start_tags_dropped = scan.dropped_start_tags;
  page.stats.attributes_dropped = scan.dropped_attributes;
  page.stats.tree_depth = scan.max_modelled_depth;
  page.stats.parse_memory_bytes = 0;
  extractor.Finish(page_url);
  return true;
}

}  // namespace crawler::html::internal
