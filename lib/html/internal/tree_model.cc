// The scanner and tree-builder model of html_scanner.h.
#include "lib/html/internal/html_scanner.h"

#include <gumbo.h>

#include <array>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/encoding/ascii.h"
#include "lib/html/internal/html_elements.h"

namespace crawler::html::internal {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::IsAsciiAlpha;
using encoding::IsAsciiWhitespace;
using encoding::StartsWithIgnoreCase;
using encoding::ToAsciiLower;
using encoding::TrimAsciiWhitespace;

constexpr size_t kNone = static_cast<size_t>(-1);
// <html> and <body> are always open below the modelled stack.
constexpr size_t kImpliedDepth = 2;
// Formatting elements (b, i, font, a, ...) allowed in the list of active formatting elements
// after its last marker; real pages have a handful.
constexpr size_t kMaxListedFormatting = 32;
// How far past max_depth an <a> may still open (see StartTagInBody): the formatting elements
// it re-opens, one more listed <a>, itself, and the <a> it closes.
constexpr size_t kMaxLinkAllowance = kMaxListedFormatting + 3;
// Longest tag name worth looking up in Gumbo's tag table ("annotation-xml", "foreignobject").
constexpr size_t kMaxKnownTagName = 16;

constexpr uint32_t kFnvBasis = 2166136261u;
uint32_t Fnv1a(uint32_t h, unsigned char c) { return (h ^ c) * 16777619u; }

uint32_t HashName(std::string_view lowercase_name) {
  uint32_t h = kFnvBasis;
  for (char c : lowercase_name) h = Fnv1a(h, static_cast<unsigned char>(c));
  return h;
}

constexpr auto IsWhitespace = IsAsciiWhitespace;
constexpr auto IsAlpha = IsAsciiAlpha;
unsigned char Lower(char c) { return static_cast<unsigned char>(ToAsciiLower(c)); }

// MathML mi, mo, mn, ms, mtext, annotation-xml and SVG foreignObject, desc, title: the foreign
// members of the special category and of every scope's boundary, and (annotation-xml with a
// condition) the integration points. The namespace matters: an SVG <mtext> is none of these.
bool IsIntegrationTag(Ns ns, GumboTag t) {
  switch (t) {
    case GUMBO_TAG_MI: case GUMBO_TAG_MO: case GUMBO_TAG_MN: case GUMBO_TAG_MS:
    case GUMBO_TAG_MTEXT: case GUMBO_TAG_ANNOTATION_XML:
      return ns == Ns::kMathml;
    case GUMBO_TAG_FOREIGNOBJECT: case GUMBO_TAG_DESC: case GUMBO_TAG_TITLE:
      return ns == Ns::kSvg;
    default:
      return false;
  }
}

struct TagToken {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  uint32_t name_hash = 0;
  uint32_t attr_hash = 0;  // order-independent, for the Noah's Ark clause
  bool self_closing = false;
  // <annotation-xml encoding="text/html|application/xhtml+xml">: an HTML integration point.
  bool html_encoding = false;
  // Has a color, face or size attribute: a <font> that ends foreign content.
  bool font_attributes = false;
  uint32_t user = 0;  // ScanListener::StartTagData
};

// One entry of the stack of open elements.
struct Entry {
  GumboTag tag;
  uint32_t name_hash;
  uint32_t attr_hash;
  Ns ns;
  bool html_encoding;  // annotation-xml that is an HTML integration point
  uint32_t list_id;    // its entry in the list of active formatting elements; 0 if none
  uint32_t form_id;    // a <form>: its id, for the parser's form element pointer; else 0
  uint32_t user;       // ScanListener::StartTagData

  bool foreign() const { return ns != Ns::kHtml; }
  OpenElementInfo info() const { return OpenElementInfo{tag, ns, user}; }
};

// The stack of open elements, with a count of open HTML elements per tag so that the common
// "is there a <p> in scope?" question for an element that is not open at all costs O(1)
// instead of a walk over the stack (which Gumbo makes, but the model need not add to).
// Pushes and pops are reported to the listener; any other change moves nodes in the tree
// (the adoption agency, </form>) and is reported as Reordered.
class OpenElements {
 public:
  explicit OpenElements(ScanListener& listener) : listener_(listener) {}

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& operator[](size_t i) const { return entries_[i]; }
  const Entry& back() const { return entries_.back(); }
  // An HTML element with this tag (or, for GUMBO_TAG_UNKNOWN, of any tag Gumbo does not know)
  // is open, anywhere in the stack.
  bool Contains(GumboTag tag) const { return html_counts_[tag] > 0; }

  void push_back(const Entry& e, bool implied = false, bool clone = false) {
    entries_.push_back(e);
    Count(e, +1);
    listener_.Pushed(e.info(), implied, clone);
  }
  void pop_back() {
    const Entry e = entries_.back();
    Count(e, -1);
    entries_.pop_back();
    listener_.Popped(e.info());
  }
  void resize(size_t n) {
    while (entries_.size() > n) pop_back();
  }
  void erase(size_t i) {
    if (i + 1 == entries_.size()) {
      pop_back();
      return;
    }
    EraseIf(i, i + 1, [](const Entry&) { return true; });
  }
  void insert(size_t i, const Entry& e) {
    listener_.Reordered();
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(i), e);
    Count(e, +1);
  }
  // Removes the entries in [first, last) for which `remove` is true.
  template <typename Remove>
  void EraseIf(size_t first, size_t last, Remove remove) {
    size_t out = first;
    for (size_t i = first; i < last; ++i) {
      if (remove(entries_[i])) {
        Count(entries_[i], -1);
      } else {
        entries_[out++] = entries_[i];
      }
    }
    if (out < last) listener_.Reordered();
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(out),
                   entries_.begin() + static_cast<std::ptrdiff_t>(last));
  }
  void SetListId(size_t i, uint32_t id) { entries_[i].list_id = id; }

 private:
  void Count(const Entry& e, int delta) {
    if (!e.foreign()) html_counts_[e.tag] += delta;
  }

  ScanListener& listener_;
  std::vector<Entry> entries_;
  std::array<int, GUMBO_TAG_LAST + 1> html_counts_{};
};

enum class StartResult { kDrop, kKeep, kRawText, kPlaintext };

enum class Scope { kDefault, kListItem, kButton, kTable };

// The model of the tree builder's state (see the header for what it is for).
class TreeModel {
 public:
  TreeModel(size_t max_depth, ScanListener& listener)
      : max_depth_(max_depth), stack_(listener), listener_(listener) {}

  size_t max_depth_seen() const { return max_seen_; }
  size_t depth() const { return stack_.size() + kImpliedDepth + framesets_; }

  // What Gumbo's tokenizer checks to recognise CDATA sections (integration points included).
  bool CurrentNodeIsForeign() const { return !stack_.empty() && stack_.back().foreign(); }

  bool InForeignContent() const {
    return !stack_.empty() && stack_.back().foreign() && !IsIntegrationPoint(stack_.back());
  }

  // The document's mode (13.2.6.4.1, "initial"), from its DOCTYPE: kNo for <!DOCTYPE html>,
  // kYes for none or another name, kUnsure with public or system identifiers (the Standard
  // looks them up in lists the model does not keep).
  enum class Quirks { kYes, kNo, kUnsure };
  void SetQuirks(Quirks quirks) { quirks_ = quirks; }

  // Text goes into the head (or is dropped in a frameset document), not the body.
  bool InHead() const { return document_ == Document::kHead; }
  bool InFrameset() const { return document_ == Document::kFrameset; }

  // The tree builder would foster-parent this start tag's element (t) or this text (t null,
  // non-whitespace): the current node is a table, table section or row ("in table" and the
  // modes that defer to it), and the token is not one those modes handle.
  bool WouldFosterParent(const TagToken* t) const {
    if (stack_.empty() || document_ == Document::kFrameset) return false;
    const Entry& current = stack_.back();
    if (current.foreign() || !(current.tag == GUMBO_TAG_TABLE || IsTableSection(current.tag) ||
                               current.tag == GUMBO_TAG_TR)) {
      return false;
    }
    if (t == nullptr) return true;
    switch (t->tag) {
      case GUMBO_TAG_CAPTION: case GUMBO_TAG_COLGROUP: case GUMBO_TAG_COL: case GUMBO_TAG_TBODY:
      case GUMBO_TAG_TFOOT: case GUMBO_TAG_THEAD: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
      case GUMBO_TAG_TR: case GUMBO_TAG_TABLE: case GUMBO_TAG_STYLE: case GUMBO_TAG_SCRIPT:
      case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_FORM:
        return false;
      default:
        return true;  // including <input type=hidden>, which the model does not tell apart
    }
  }

  // What the tree builder did with the element of the last StartTag; for the last EndTag,
  // kHtml if it inserted an element (</br>, </p> without a p to close), else kIgnored.
  Insertion insertion() const { return insertion_; }

  StartResult StartTag(const TagToken& t) {
    insertion_ = Insertion::kIgnored;
    const StartResult result = StartTagImpl(t);
    if (result == StartResult::kDrop) insertion_ = Insertion::kDropped;
    return result;
  }

 private:
  StartResult StartTagImpl(const TagToken& t) {
    if (document_ == Document::kFrameset) return StartTagInFrameset(t);
    if (t.tag == GUMBO_TAG_FRAMESET) {
      // A frameset replaces the body only if nothing but head content came before (and some
      // body content that does not clear the parser's frameset-ok flag): rather than model
      // that flag, the limiter removes every <frameset> it cannot be sure of, so the parser
      // never switches modes behind the model's back.
      if (document_ == Document::kBody) return StartResult::kDrop;
      document_ = Document::kFrameset;
      PopFrom(0);
      return StartTagInFrameset(t);
    }
    if (head_noscript_) {
      // "in head noscript" (scripting disabled): a few head elements, else it closes.
      switch (t.tag) {
        case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND: case GUMBO_TAG_LINK: case GUMBO_TAG_META:
          insertion_ = Insertion::kHtml;
          return StartResult::kKeep;
        case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_STYLE:
          insertion_ = Insertion::kHtml;
          return StartResult::kRawText;
        default:
          CloseHeadNoscript();
          break;
      }
    }
    if (document_ == Document::kHead && !head_closed_ && t.tag == GUMBO_TAG_NOSCRIPT) {
      if (depth() + 1 > max_depth_) return StartResult::kDrop;
      Insert(t, Ns::kHtml);
      head_noscript_ = true;
      return StartResult::kKeep;
    }
    if (document_ == Document::kHead && !KeepsHead(t.tag)) document_ = Document::kBody;
    if (InForeignContent()) {
      // SVG or MathML elements named like HTML table, select or document structure mean
      // nothing, and Gumbo 0.10 confuses them with the HTML ones when it resets its insertion
      // mode (one such input fails its assertions): they go.
      if (IsStructuralHtmlName(t.tag)) return StartResult::kDrop;
      const bool breaks_out =
          BreaksOutOfForeign(t.tag) || (t.tag == GUMBO_TAG_FONT && t.font_attributes);
      if (!breaks_out) {
        // Gumbo 0.10 resets its insertion mode by tag without looking at the namespace: an SVG
        // or MathML element named "select" sends it into "in select" and a later <table> then
        // fails an assertion (abort) on an empty stack. Such an element means nothing to a
        // crawler: drop its start tag (the content stays).
        if (t.tag == GUMBO_TAG_SELECT) return StartResult::kDrop;
        if (t.self_closing) {
          insertion_ = Insertion::kForeign;
          return StartResult::kKeep;
        }
        if (depth() + 1 > max_depth_) return StartResult::kDrop;
        // A foreign element takes the current node's namespace, except that <svg> in
        // annotation-xml starts SVG.
        const Entry& current = stack_.back();
        const bool svg_in_annotation = t.tag == GUMBO_TAG_SVG && current.ns == Ns::kMathml &&
                                       current.tag == GUMBO_TAG_ANNOTATION_XML;
        Insert(t, svg_in_annotation ? Ns::kSvg : current.ns);
        return StartResult::kKeep;
      }
      // Checked before the pops: a dropped tag must leave the model as the tree builder will.
      if (depth() + ReconstructCount() + 1 > max_depth_) return StartResult::kDrop;
      size_t i = stack_.size();
      while (i > 0 && stack_[i - 1].foreign() && !IsIntegrationPoint(stack_[i - 1])) --i;
      PopFrom(i);
    }
    const size_t select = SelectIndex();
    if (select != kNone) return StartTagInSelect(t, select);
    return StartTagInBody(t);
  }


 public:
  void EndTag(const TagToken& t) {
    insertion_ = Insertion::kIgnored;
    if (document_ == Document::kFrameset) {
      if (t.tag == GUMBO_TAG_FRAMESET && framesets_ > 0 && --framesets_ == 0) {
        after_frameset_ = true;
      }
      return;
    }
    if (head_noscript_) {
      if (t.tag == GUMBO_TAG_NOSCRIPT) {
        CloseHeadNoscript();
        return;
      }
      if (t.tag != GUMBO_TAG_BR) return;  // ignored there
      CloseHeadNoscript();
    }
    if (document_ == Document::kHead) {
      // Before the body, </head> ends the head; </body>, </html> and </br> start the body; the
      // parser ignores any other end tag.
      if (t.tag == GUMBO_TAG_HEAD) {
        head_closed_ = true;
        return;
      }
      if (t.tag != GUMBO_TAG_BODY && t.tag != GUMBO_TAG_HTML && t.tag != GUMBO_TAG_BR) return;
      document_ = Document::kBody;
    }
    if (!stack_.empty() && stack_.back().foreign()) {
      for (size_t i = stack_.size(); i > 0 && stack_[i - 1].foreign(); --i) {
        if (stack_[i - 1].name_hash == t.name_hash) {
          PopFrom(i - 1);
          return;
        }
      }
    }
    const size_t select = SelectIndex();
    if (select != kNone) {
      EndTagInSelect(t, select);
      return;
    }
    EndTagInBody(t);
  }

  // Text made only of U+0000 outside foreign content: the tree builder ignores it (after
  // leaving the head, where it counts as content), without re-opening formatting elements.
  void NullText() {
    if (document_ == Document::kFrameset) return;
    if (head_noscript_) CloseHeadNoscript();
    document_ = Document::kBody;
  }

  void Text(bool whitespace_only) {
    if (document_ == Document::kFrameset) return;
    if (head_noscript_) {
      if (whitespace_only) return;
      CloseHeadNoscript();
    }
    if (!whitespace_only) document_ = Document::kBody;
    if (InForeignContent() || SelectIndex() != kNone) return;
    if (!whitespace_only && !stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_COLGROUP)) {
      stack_.pop_back();
    }
    if (whitespace_only) {
      // "in table" (and its sections, rows, column groups) whitespace goes in as is.
      const size_t ctx = TableContext();
      if (ctx != kNone) {
        const GumboTag mode = stack_[ctx].tag;
        if (mode == GUMBO_TAG_TABLE || IsTableSection(mode) || mode == GUMBO_TAG_TR ||
            mode == GUMBO_TAG_COLGROUP) {
          return;
        }
      }
    }
    Reconstruct();
  }

 private:
  // What the parser has made of the document so far, as far as <frameset> is concerned.
  enum class Document {
    kHead,      // before the body: a <frameset> would replace the (implied) body
    kBody,      // body content, or anything the model is unsure of: <frameset> is removed
    kFrameset,  // a frameset document: nothing but framesets, frames and noframes count
  };

  // Start tags that leave the parser before the body (or in it without content, which the
  // model does not try to tell apart).
  static bool KeepsHead(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT:
      case GUMBO_TAG_BGSOUND: case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_TITLE:
      case GUMBO_TAG_STYLE: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_TEMPLATE:
        return true;
      default:
        return false;
    }
  }

  void CloseHeadNoscript() {
    head_noscript_ = false;
    if (!stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_NOSCRIPT)) stack_.pop_back();
  }

  // "in frameset" and "after frameset": everything but these is ignored by the parser.
  StartResult StartTagInFrameset(const TagToken& t) {
    switch (t.tag) {
      case GUMBO_TAG_FRAMESET:
        if (after_frameset_) return StartResult::kKeep;  // ignored
        if (depth() + 1 > max_depth_) return StartResult::kDrop;
        ++framesets_;
        insertion_ = Insertion::kHtml;
        NoteDepth();
        return StartResult::kKeep;
      case GUMBO_TAG_NOFRAMES:
        insertion_ = Insertion::kHtml;
        return StartResult::kRawText;
      case GUMBO_TAG_FRAME:
        // "in frameset" inserts it; "after frameset" ignores it.
        if (framesets_ > 0 && !after_frameset_) insertion_ = Insertion::kHtml;
        return StartResult::kKeep;
      default:
        return StartResult::kKeep;
    }
  }

  // An entry of the list of active formatting elements (13.2.4.3), in the list's order: a
  // marker, or a formatting element that is open (on the stack, whose entry has the same id)
  // or closed but still listed (the next reconstruction re-opens it).
  struct ListItem {
    uint32_t id;  // 0 for a marker
    GumboTag tag;
    uint32_t name_hash;
    uint32_t attr_hash;
    bool open;
    uint32_t user;  // of the start tag, for the clones
  };

  // Where HTML rules apply again inside foreign content. annotation-xml is one only with an
  // HTML encoding; erring either way here would let the model read markup as raw text (or the
  // reverse), so it follows the spec.
  static bool IsIntegrationPoint(const Entry& e) {
    if (!IsIntegrationTag(e.ns, e.tag)) return false;
    return e.tag != GUMBO_TAG_ANNOTATION_XML || e.html_encoding;
  }
  static bool IsSpecial(const Entry& e) {
    return e.foreign() ? IsIntegrationTag(e.ns, e.tag) : IsSpecialHtml(e.tag);
  }
  static bool IsMarkerElement(const Entry& e) { return !e.foreign() && IsMarkerTag(e.tag); }
  static bool IsHtml(const Entry& e, GumboTag t) { return !e.foreign() && e.tag == t; }

  static bool IsScopeBoundary(const Entry& e, Scope scope) {
    if (e.foreign()) return scope != Scope::kTable && IsIntegrationTag(e.ns, e.tag);
    switch (e.tag) {
      case GUMBO_TAG_HTML: case GUMBO_TAG_TABLE: case GUMBO_TAG_TEMPLATE:
        return true;
      case GUMBO_TAG_APPLET: case GUMBO_TAG_CAPTION: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
      case GUMBO_TAG_MARQUEE: case GUMBO_TAG_OBJECT:
        return scope != Scope::kTable;
      case GUMBO_TAG_OL: case GUMBO_TAG_UL:
        return scope == Scope::kListItem;
      case GUMBO_TAG_BUTTON:
        return scope == Scope::kButton;
      default:
        return false;
    }
  }

  template <typename Match>
  size_t FindInScope(Match match, Scope scope) const {
    for (size_t i = stack_.size(); i > 0; --i) {
      const Entry& e = stack_[i - 1];
      if (match(e)) return i - 1;
      if (IsScopeBoundary(e, scope)) return kNone;
    }
    return kNone;
  }

  size_t FindHtmlInScope(GumboTag t, Scope scope) const {
    if (!stack_.Contains(t)) return kNone;
    return FindInScope([t](const Entry& e) { return IsHtml(e, t); }, scope);
  }

  size_t SelectIndex() const {
    size_t i = stack_.size();
    while (i > 0 && (IsHtml(stack_[i - 1], GUMBO_TAG_OPTION) ||
                     IsHtml(stack_[i - 1], GUMBO_TAG_OPTGROUP))) {
      --i;
    }
    return i > 0 && IsHtml(stack_[i - 1], GUMBO_TAG_SELECT) ? i - 1 : kNone;
  }

  // The nearest table-structure element, which decides the table insertion modes.
  size_t TableContext() const {
    // Table parts are only ever opened inside a table (or a template).
    if (!stack_.Contains(GUMBO_TAG_TABLE) && !stack_.Contains(GUMBO_TAG_TEMPLATE)) return kNone;
    for (size_t i = stack_.size(); i > 0; --i) {
      const Entry& e = stack_[i - 1];
      if (e.foreign()) continue;
      if (e.tag == GUMBO_TAG_TABLE || IsTablePart(e.tag) || e.tag == GUMBO_TAG_TEMPLATE) {
        return i - 1;
      }
    }
    return kNone;
  }

  size_t FirstAfterMarker() const { return list_markers_.empty() ? 0 : list_markers_.back() + 1; }

  // The last formatting element with this name after the last marker, or kNone.
  size_t FindListed(uint32_t name_hash) const {
    for (size_t i = list_.size(); i > FirstAfterMarker(); --i) {
      if (list_[i - 1].name_hash == name_hash) return i - 1;
    }
    return kNone;
  }

  size_t ListIndexOf(uint32_t id) const {
    for (size_t i = list_.size(); i > 0; --i) {
      if (list_[i - 1].id == id) return i - 1;
    }
    return kNone;
  }

  size_t StackIndexOf(uint32_t id) const {
    for (size_t i = stack_.size(); i > 0; --i) {
      if (stack_[i - 1].list_id == id) return i - 1;
    }
    return kNone;
  }

  // Removes list_[i] (not a marker); an open element stays open but leaves the list.
  void Unlist(size_t i) {
    if (list_[i].open) {
      const size_t at = StackIndexOf(list_[i].id);
      if (at != kNone) stack_.SetListId(at, 0);
    }
    list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // "Clear the list of active formatting elements up to the last marker".
  void ClearListToLastMarker() {
    const size_t marker = list_markers_.empty() ? 0 : list_markers_.back();
    for (size_t i = marker; i < list_.size(); ++i) {
      if (list_[i].id != 0 && list_[i].open) {
        const size_t at = StackIndexOf(list_[i].id);
        if (at != kNone) stack_.SetListId(at, 0);
      }
    }
    list_.resize(marker);
    if (!list_markers_.empty()) list_markers_.pop_back();
  }

  void NoteDepth() { max_seen_ = std::max(max_seen_, depth()); }

  void Push(const TagToken& t, Ns ns, bool implied) {
    uint32_t list_id = 0;
    if (ns == Ns::kHtml && IsFormatting(t.tag)) {
      list_id = next_list_id_++;
      list_.push_back(ListItem{list_id, t.tag, t.name_hash, t.attr_hash, true, t.user});
    }
    const uint32_t form_id = ns == Ns::kHtml && t.tag == GUMBO_TAG_FORM ? ++next_form_id_ : 0;
    stack_.push_back(
        Entry{t.tag, t.name_hash, t.attr_hash, ns, t.html_encoding, list_id, form_id, t.user},
        implied);
    if (ns == Ns::kHtml && IsMarkerTag(t.tag)) {
      list_markers_.push_back(list_.size());
      list_.push_back(ListItem{0, t.tag, 0, 0, false, 0});
    }
    NoteDepth();
  }

  // Pushes the start tag's own element.
  void Insert(const TagToken& t, Ns ns) {
    insertion_ = ns == Ns::kHtml ? Insertion::kHtml : Insertion::kForeign;
    Push(t, ns, /*implied=*/false);
  }

  void PushImplied(GumboTag tag) {
    TagToken t;
    t.tag = tag;
    t.name_hash = HashName(gumbo_normalized_tagname(tag));
    Push(t, Ns::kHtml, /*implied=*/true);
  }

  // Pops stack_[index..]. Formatting elements popped this way stay in the list of active
  // formatting elements (and are reconstructed later). Popping a marker element does not clear
  // its marker: only closing a cell or caption, or an applet, marquee, object or template end
  // tag does (ClearListToLastMarker), and Gumbo leaves stale markers behind otherwise, which
  // stop later reconstructions and adoption agency runs.
  void PopFrom(size_t index) {
    if (index == kNone || index >= stack_.size()) return;
    // Open formatting elements sit on the stack in list order, so each is looked for just
    // below the previous one: popping n of them costs O(n + list), not O(n * list).
    size_t hint = list_.size();
    while (stack_.size() > index) {
      const Entry& e = stack_.back();
      if (e.list_id != 0) {
        size_t i = hint;
        while (i > 0 && list_[i - 1].id != e.list_id) --i;
        if (i == 0) {
          i = ListIndexOf(e.list_id);
          if (i != kNone) ++i;
        }
        if (i != kNone && i > 0) {
          list_[i - 1].open = false;
          hint = i - 1;
        }
      }
      stack_.pop_back();
    }
  }

  // Where "reconstruct the active formatting elements" starts re-opening: after the last entry
  // that is a marker or open. Returns list_.size() if there is nothing to re-open.
  size_t ReconstructFrom() const {
    size_t i = list_.size();
    while (i > 0 && list_[i - 1].id != 0 && !list_[i - 1].open) --i;
    return i;
  }

  size_t ReconstructCount() const { return list_.size() - ReconstructFrom(); }

  void Reconstruct() {
    for (size_t i = ReconstructFrom(); i < list_.size(); ++i) {
      ListItem& item = list_[i];
      item.open = true;
      stack_.push_back(Entry{item.tag, item.name_hash, item.attr_hash, Ns::kHtml, false, item.id,
                             0, item.user},
                       /*implied=*/false, /*clone=*/true);
    }
    NoteDepth();
  }

  // Noah's Ark: at most three identical formatting elements after the last marker; the
  // earliest goes before a fourth is added.
  void NoahsArk(const TagToken& t) {
    size_t count = 0;
    size_t earliest = kNone;
    for (size_t i = FirstAfterMarker(); i < list_.size(); ++i) {
      if (list_[i].name_hash == t.name_hash && list_[i].attr_hash == t.attr_hash) {
        if (earliest == kNone) earliest = i;
        ++count;
      }
    }
    if (count >= 3) Unlist(earliest);
  }

  // Gumbo compares tags here by its enum, so the end tag of any element it does not know (a
  // custom element, say) closes the nearest open element it does not know, whatever its name.
  // Pops to `index` and, if found, clears the list of active formatting elements to the last
  // marker: the end of a cell, caption, applet, marquee, object or template.
  void PopAndClearMarker(size_t index) {
    if (index == kNone) return;
    PopFrom(index);
    ClearListToLastMarker();
  }

  void AnyOtherEndTag(const TagToken& t) {
    if (!stack_.Contains(t.tag)) return;  // nothing to close
    for (size_t i = stack_.size(); i > 0; --i) {
      const Entry& e = stack_[i - 1];
      if (!e.foreign() && e.tag == t.tag) {
        PopFrom(i - 1);
        return;
      }
      if (IsSpecial(e)) return;
    }
  }

  // The adoption agency algorithm as Gumbo 0.10 runs it (checked against its behaviour; it
  // differs from today's spec), as far as the stack depth is concerned.
  void AdoptionAgency(const TagToken& t) {
    // The current node, if it is the element but no longer listed, just closes.
    if (!stack_.empty() && IsHtml(stack_.back(), t.tag) && stack_.back().list_id == 0) {
      stack_.pop_back();
      return;
    }
    // No such formatting element listed: Gumbo ignores the end tag (no "any other end tag").
    const size_t listed = FindListed(t.name_hash);
    if (listed == kNone) return;
    if (!list_[listed].open) {
      Unlist(listed);
      return;
    }
    const size_t f = StackIndexOf(list_[listed].id);
    if (f == kNone) {
      Unlist(listed);
      return;
    }
    if (FindHtmlInScope(t.tag, Scope::kDefault) == kNone) return;  // ignored
    const uint32_t id = list_[listed].id;
    // Each outer iteration (at most 8) finds the first special element above the formatting
    // element (or its clone), closes the ordinary elements in between (formatting ones are
    // re-created in place), and moves the clone just above that furthest block. The iteration
    // that finds none pops the clone and everything above it. (Checked against Gumbo.)
    size_t cur = f;
    for (int iteration = 0; iteration < 8; ++iteration) {
      size_t furthest_block = kNone;
      for (size_t i = cur + 1; i < stack_.size(); ++i) {
        if (IsSpecial(stack_[i])) {
          furthest_block = i;
          break;
        }
      }
      if (furthest_block == kNone) {
        PopFrom(cur + 1);
        stack_.pop_back();
        if (const size_t item = ListIndexOf(id); item != kNone) Unlist(item);
        return;
      }
      const size_t before = stack_.size();
      stack_.EraseIf(cur + 1, furthest_block, [](const Entry& e) { return e.list_id == 0; });
      furthest_block -= before - stack_.size();
      const Entry clone = stack_[cur];
      stack_.erase(cur);
      stack_.insert(furthest_block, clone);  // just above the (shifted) furthest block
      cur = furthest_block;
    }
  }

  // "Generate implied end tags": elements whose end tag may be omitted.
  static bool HasImpliedEndTag(const Entry& e) {
    if (e.foreign()) return false;
    switch (e.tag) {
      case GUMBO_TAG_DD: case GUMBO_TAG_DT: case GUMBO_TAG_LI: case GUMBO_TAG_OPTION:
      case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_P: case GUMBO_TAG_RP: case GUMBO_TAG_RT:
        return true;
      default:
        return false;
    }
  }

  void ClosePInButtonScope() { PopFrom(FindHtmlInScope(GUMBO_TAG_P, Scope::kButton)); }

  // The li / dd / dt start tag loop.
  void CloseListItem(GumboTag a, GumboTag b) {
    if (!stack_.Contains(a) && !stack_.Contains(b)) return;
    for (size_t i = stack_.size(); i > 0; --i) {
      const Entry& e = stack_[i - 1];
      if (IsHtml(e, a) || IsHtml(e, b)) {
        PopFrom(i - 1);
        return;
      }
      if (IsSpecial(e) && !IsHtml(e, GUMBO_TAG_ADDRESS) && !IsHtml(e, GUMBO_TAG_DIV) &&
          !IsHtml(e, GUMBO_TAG_P)) {
        return;
      }
    }
  }

  StartResult StartTableStructure(const TagToken& t) {
    // Up to two implied elements (tbody, tr) come with the tag; checked before any change, as
    // a dropped tag must leave the model as the tree builder will be.
    if (depth() + 3 > max_depth_) return StartResult::kDrop;
    size_t ctx = TableContext();
    if (ctx == kNone) return StartResult::kKeep;  // ignored outside tables
    if (stack_[ctx].tag == GUMBO_TAG_TEMPLATE) {
      // Directly in a template, a table part sets the template's insertion mode and opens.
      if (ctx + 1 == stack_.size() && t.tag != GUMBO_TAG_COL) Insert(t, Ns::kHtml);
      return StartResult::kKeep;
    }
    const GumboTag c = stack_[ctx].tag;
    if (t.tag == GUMBO_TAG_COL && c == GUMBO_TAG_COLGROUP) {
      insertion_ = Insertion::kHtml;  // void
      return StartResult::kKeep;
    }
    if (c == GUMBO_TAG_TD || c == GUMBO_TAG_TH || c == GUMBO_TAG_CAPTION ||
        c == GUMBO_TAG_COLGROUP) {
      if (c == GUMBO_TAG_COLGROUP) {
        PopFrom(ctx);
      } else {
        PopAndClearMarker(ctx);
      }
      ctx = TableContext();
      if (ctx == kNone || stack_[ctx].tag == GUMBO_TAG_TEMPLATE) return StartResult::kKeep;
    }
    const GumboTag tag = t.tag;
    if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) {
      PopFrom(ctx + 1);
      if (stack_[ctx].tag == GUMBO_TAG_TABLE) PushImplied(GUMBO_TAG_TBODY);
      if (stack_[ctx].tag != GUMBO_TAG_TR) PushImplied(GUMBO_TAG_TR);
    } else if (tag == GUMBO_TAG_TR) {
      if (stack_[ctx].tag == GUMBO_TAG_TR) {
        PopFrom(ctx);
        ctx = TableContext();
        if (ctx == kNone) return StartResult::kKeep;
      }
      PopFrom(ctx + 1);
      if (stack_[ctx].tag == GUMBO_TAG_TABLE) PushImplied(GUMBO_TAG_TBODY);
    } else {
      // caption, colgroup, col, tbody, thead, tfoot: back to the table itself.
      size_t table = kNone;
      for (size_t i = ctx + 1; i > 0; --i) {
        if (IsHtml(stack_[i - 1], GUMBO_TAG_TABLE)) {
          table = i - 1;
          break;
        }
      }
      if (table == kNone) return StartResult::kKeep;
      PopFrom(table + 1);
      if (tag == GUMBO_TAG_COL) {
        // <col> is void, but the column group it implies stays open.
        PushImplied(GUMBO_TAG_COLGROUP);
        insertion_ = Insertion::kHtml;
        return StartResult::kKeep;
      }
    }
    Insert(t, Ns::kHtml);
    return StartResult::kKeep;
  }

  StartResult StartTagInBody(const TagToken& t) {
    const GumboTag tag = t.tag;
    switch (tag) {
      case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BODY:
        return StartResult::kKeep;
      default:
        break;
    }
    if (IsTablePart(tag) || tag == GUMBO_TAG_COL) return StartTableStructure(t);
    if (!stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_COLGROUP) &&
        tag != GUMBO_TAG_TEMPLATE) {
      // "in column group", anything else closes the column group first.
      stack_.pop_back();
    }
    if (IsRawText(tag)) {
      // Raw text elements are closed by their own end tag, which the scanner consumes with the
      // content; they never stay on the stack.
      if (tag == GUMBO_TAG_XMP || tag == GUMBO_TAG_PLAINTEXT) ClosePInButtonScope();
      if (tag == GUMBO_TAG_XMP) Reconstruct();
      insertion_ = Insertion::kHtml;
      return tag == GUMBO_TAG_PLAINTEXT ? StartResult::kPlaintext : StartResult::kRawText;
    }
    if (IsVoid(tag)) {
      if (tag == GUMBO_TAG_HR) ClosePInButtonScope();
      if (VoidReconstructs(tag)) Reconstruct();
      // "in body" ignores <frame>.
      if (tag != GUMBO_TAG_FRAME) insertion_ = Insertion::kHtml;
      return StartResult::kKeep;
    }
    // Gumbo 0.10 still expands <isindex> into a form of several elements.
    if (tag == GUMBO_TAG_ISINDEX) listener_.Reordered();
    // With a form open (and no template), the parser ignores another.
    const bool in_template = stack_.Contains(GUMBO_TAG_TEMPLATE);
    if (tag == GUMBO_TAG_FORM && form_pointer_ != 0 && !in_template) return StartResult::kKeep;

    const size_t reconstructed = SkipsReconstruction(tag) ? 0 : ReconstructCount();
    // Links are kept past both limits, as browsers keep them: an <a> closes the <a> listed
    // after the last marker (below), so <a> elements never nest within a marker's scope (and
    // markers are held to max_depth), each <a> adds one list entry at most, and to the stack
    // itself and the formatting elements it re-opens (at most kMaxListedFormatting + 1) at
    // most. The stack so stays within max_depth + kMaxLinkAllowance.
    const bool link = tag == GUMBO_TAG_A;
    if (depth() + reconstructed + 1 > max_depth_ + (link ? kMaxLinkAllowance : 0)) {
      return StartResult::kDrop;
    }
    // Every text run re-opens the closed formatting elements listed after the last marker, so
    // their number is the parser's work (and tree growth) per token. Noah's Ark keeps three of
    // each tag-and-attributes; distinct attributes would let the list grow without end.
    if (IsFormatting(tag) && !link &&
        list_.size() - FirstAfterMarker() >= kMaxListedFormatting) {
      return StartResult::kDrop;
    }

    switch (tag) {
      case GUMBO_TAG_LI:
        CloseListItem(GUMBO_TAG_LI, GUMBO_TAG_LI);
        break;
      case GUMBO_TAG_DD: case GUMBO_TAG_DT:
        CloseListItem(GUMBO_TAG_DD, GUMBO_TAG_DT);
        break;
      case GUMBO_TAG_TABLE: {
        const size_t ctx = TableContext();
        if (ctx != kNone && !IsMarkerTag(stack_[ctx].tag)) {
          // A table directly in a table (or its column group) closes it.
          for (size_t i = ctx + 1; i > 0; --i) {
            if (IsHtml(stack_[i - 1], GUMBO_TAG_TABLE)) {
              PopFrom(i - 1);
              break;
            }
          }
        }
        break;
      }
      case GUMBO_TAG_A: {
        // An <a> in the list after the last marker: run the adoption agency, then make sure
        // that element is gone from the list and the stack.
        const size_t listed = FindListed(t.name_hash);
        if (listed == kNone) break;
        const uint32_t id = list_[listed].id;
        AdoptionAgency(t);
        const size_t still_listed = ListIndexOf(id);
        if (still_listed != kNone) Unlist(still_listed);
        const size_t still_open = StackIndexOf(id);
        if (still_open != kNone) stack_.erase(still_open);
        break;
      }
      case GUMBO_TAG_NOBR:
        Reconstruct();
        if (FindHtmlInScope(GUMBO_TAG_NOBR, Scope::kDefault) != kNone) AdoptionAgency(t);
        break;
      case GUMBO_TAG_RP: case GUMBO_TAG_RT:
        if (FindHtmlInScope(GUMBO_TAG_RUBY, Scope::kDefault) != kNone) {
          while (!stack_.empty() && HasImpliedEndTag(stack_.back())) stack_.pop_back();
        }
        break;
      case GUMBO_TAG_BUTTON:
        PopFrom(FindHtmlInScope(GUMBO_TAG_BUTTON, Scope::kDefault));
        break;
      case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP:
        if (!stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_OPTION)) stack_.pop_back();
        break;
      default:
        break;
    }
    // <table> closes a p only outside quirks mode.
    if (tag == GUMBO_TAG_TABLE) {
      if (quirks_ == Quirks::kNo) {
        ClosePInButtonScope();
      } else if (quirks_ == Quirks::kUnsure &&
                 FindHtmlInScope(GUMBO_TAG_P, Scope::kButton) != kNone) {
        listener_.Unmodelled();
      }
    } else if (ClosesP(tag)) {
      ClosePInButtonScope();
    }
    if (IsHeading(tag) && !stack_.empty() && !stack_.back().foreign() &&
        IsHeading(stack_.back().tag)) {
      stack_.pop_back();
    }
    if (!SkipsReconstruction(tag)) Reconstruct();
    if (IsFormatting(tag)) NoahsArk(t);
    const Ns ns = tag == GUMBO_TAG_SVG ? Ns::kSvg : tag == GUMBO_TAG_MATH ? Ns::kMathml : Ns::kHtml;
    if (ns != Ns::kHtml && t.self_closing) {
      insertion_ = Insertion::kForeign;
      return StartResult::kKeep;
    }
    Insert(t, ns);
    if (tag == GUMBO_TAG_FORM && !in_template) form_pointer_ = stack_.back().form_id;
    return StartResult::kKeep;
  }

  StartResult StartTagInSelect(const TagToken& t, size_t select) {
    switch (t.tag) {
      case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP:
        if (IsHtml(stack_.back(), GUMBO_TAG_OPTION)) stack_.pop_back();
        if (t.tag == GUMBO_TAG_OPTGROUP && IsHtml(stack_.back(), GUMBO_TAG_OPTGROUP)) {
          stack_.pop_back();
        }
        if (depth() + 1 > max_depth_) return StartResult::kDrop;
        Insert(t, Ns::kHtml);
        return StartResult::kKeep;
      case GUMBO_TAG_SELECT:
        PopFrom(select);
        return StartResult::kKeep;
      case GUMBO_TAG_CAPTION: case GUMBO_TAG_TABLE: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_THEAD: case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
        // Only "in select in table" (a select opened inside a table) do these close it.
        if (TableContext() == kNone) return StartResult::kKeep;
        [[fallthrough]];
      case GUMBO_TAG_INPUT: case GUMBO_TAG_KEYGEN: case GUMBO_TAG_TEXTAREA:
        if (depth() + ReconstructCount() + 3 > max_depth_) return StartResult::kDrop;
        PopFrom(select);
        return StartTagInBody(t);
      case GUMBO_TAG_SCRIPT: case GUMBO_TAG_TEMPLATE:
        insertion_ = Insertion::kHtml;
        return StartResult::kRawText;
      default:
        // Ignored by the tree builder, so the tokenizer does not switch to raw text either.
        return StartResult::kKeep;
    }
  }

  void EndTagInSelect(const TagToken& t, size_t select) {
    switch (t.tag) {
      case GUMBO_TAG_OPTGROUP:
        if (IsHtml(stack_.back(), GUMBO_TAG_OPTION) && stack_.size() >= 2 &&
            IsHtml(stack_[stack_.size() - 2], GUMBO_TAG_OPTGROUP)) {
          stack_.pop_back();
        }
        if (IsHtml(stack_.back(), GUMBO_TAG_OPTGROUP)) stack_.pop_back();
        return;
      case GUMBO_TAG_OPTION:
        if (IsHtml(stack_.back(), GUMBO_TAG_OPTION)) stack_.pop_back();
        return;
      case GUMBO_TAG_SELECT:
        PopFrom(select);
        return;
      case GUMBO_TAG_CAPTION: case GUMBO_TAG_TABLE: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_THEAD: case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
        if (TableContext() != kNone && FindHtmlInScope(t.tag, Scope::kTable) != kNone) {
          PopFrom(select);
          EndTagInBody(t);
        }
        return;
      default:
        return;
    }
  }

  void EndTagInBody(const TagToken& t) {
    const GumboTag tag = t.tag;
    if (!stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_COLGROUP)) {
      // "in column group": its own end tag closes it, </col> is ignored, anything else closes
      // it and goes on in the table.
      if (tag == GUMBO_TAG_COL) return;
      stack_.pop_back();
      if (tag == GUMBO_TAG_COLGROUP) return;
    } else if (tag == GUMBO_TAG_COLGROUP || tag == GUMBO_TAG_COL) {
      return;  // ignored anywhere else
    }
    if (tag == GUMBO_TAG_UNKNOWN) {
      AnyOtherEndTag(t);
      return;
    }
    switch (tag) {
      case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BODY:
        return;
      case GUMBO_TAG_BR:
        // </br> is <br>.
        Reconstruct();
        insertion_ = Insertion::kHtml;
        return;
      case GUMBO_TAG_P:
        // Without a p to close, the parser re-opens the formatting elements and inserts one.
        if (FindHtmlInScope(GUMBO_TAG_P, Scope::kButton) == kNone) {
          Reconstruct();
          insertion_ = Insertion::kHtml;
        }
        ClosePInButtonScope();
        return;
      case GUMBO_TAG_FORM: {
        // The form the pointer names, if in scope (it may have been closed meanwhile).
        const uint32_t form = std::exchange(form_pointer_, 0);
        if (form == 0) return;
        const size_t i =
            FindInScope([form](const Entry& e) { return e.form_id == form; }, Scope::kDefault);
        if (i == kNone) return;
        // Implied end tags are generated, then only the form element itself is removed; what
        // was opened inside it stays open.
        while (stack_.size() > i + 1 && HasImpliedEndTag(stack_.back())) stack_.pop_back();
        stack_.erase(i);
        return;
      }
      case GUMBO_TAG_LI:
        PopFrom(FindHtmlInScope(GUMBO_TAG_LI, Scope::kListItem));
        return;
      case GUMBO_TAG_TEMPLATE:
        PopAndClearMarker(FindHtmlInScope(GUMBO_TAG_TEMPLATE, Scope::kTable));
        return;
      default:
        break;
    }
    if (tag == GUMBO_TAG_APPLET || tag == GUMBO_TAG_MARQUEE || tag == GUMBO_TAG_OBJECT) {
      // Gumbo 0.10 looks for these in table scope (the spec: in scope).
      PopAndClearMarker(FindHtmlInScope(tag, Scope::kTable));
      return;
    }
    if (IsHeading(tag)) {
      const bool open = stack_.Contains(GUMBO_TAG_H1) || stack_.Contains(GUMBO_TAG_H2) ||
                        stack_.Contains(GUMBO_TAG_H3) || stack_.Contains(GUMBO_TAG_H4) ||
                        stack_.Contains(GUMBO_TAG_H5) || stack_.Contains(GUMBO_TAG_H6);
      if (!open) return;
      PopFrom(FindInScope([](const Entry& e) { return !e.foreign() && IsHeading(e.tag); },
                          Scope::kDefault));
    } else if (tag == GUMBO_TAG_TABLE || IsTablePart(tag)) {
      const size_t target = FindHtmlInScope(tag, Scope::kTable);
      if (target == kNone) return;
      // Ending a cell or caption (also implicitly, on the way to an enclosing table part)
      // clears the formatting list to its marker, once.
      const size_t ctx = TableContext();
      const bool closes_cell =
          ctx != kNone && ctx >= target &&
          (IsHtml(stack_[ctx], GUMBO_TAG_TD) || IsHtml(stack_[ctx], GUMBO_TAG_TH) ||
           IsHtml(stack_[ctx], GUMBO_TAG_CAPTION));
      PopFrom(target);
      if (closes_cell) ClearListToLastMarker();
    } else if (IsFormatting(tag)) {
      AdoptionAgency(t);
    } else if (IsScopedBlock(tag)) {
      PopFrom(FindHtmlInScope(tag, Scope::kDefault));
    } else {
      AnyOtherEndTag(t);
    }
  }

  const size_t max_depth_;
  OpenElements stack_;
  ScanListener& listener_;
  Insertion insertion_ = Insertion::kIgnored;  // of the last StartTag
  std::vector<ListItem> list_;
  std::vector<size_t> list_markers_;  // indices of the markers in list_
  uint32_t next_list_id_ = 1;
  uint32_t form_pointer_ = 0;  // the tree builder's form element pointer (a form_id), or 0
  uint32_t next_form_id_ = 0;
  Document document_ = Document::kHead;
  Quirks quirks_ = Quirks::kYes;  // no DOCTYPE: quirks mode
  size_t framesets_ = 0;  // open <frameset> elements in a frameset document
  bool after_frameset_ = false;  // the outermost frameset is closed
  bool head_noscript_ = false;   // a <noscript> in <head> is open ("in head noscript")
  bool head_closed_ = false;     // </head> seen while in kHead ("after head")
  size_t max_seen_ = kImpliedDepth;
};

// The scanner: a tokenizer just precise enough to find tags, attributes, comments and raw text
// the way the HTML tokenizer does.
class Scanner {
 public:
  Scanner(std::string_view html, const NestingLimits& limits, ScanListener& listener)
      : in_(html), limits_(limits), listener_(listener), model_(limits.max_depth, listener) {}

  ScanReport Run() {
    const size_t n = in_.size();
    size_t pos = 0;
    while (pos < n && !listener_.Stop()) {
      const size_t lt = in_.find('<', pos);
      if (lt == std::string_view::npos) {
        Text(pos, n);
        break;
      }
      if (lt > pos) Text(pos, lt);
      pos = Markup(lt);
    }
    report_.max_modelled_depth = model_.max_depth_seen();
    report_.final_modelled_depth = model_.depth();
    return report_;
  }

 private:
  struct Attributes {
    size_t end = 0;         // just past the '>'; npos at end of input (the tag is discarded)
    size_t count = 0;
    uint32_t hash = 0;
    bool self_closing = false;
    // The first encoding="..." is text/html or application/xhtml+xml (annotation-xml), or
    // holds a character reference the model does not decode.
    bool html_encoding = false;
    bool unsure_encoding = false;
    bool font_attributes = false;  // color, face or size (see TagToken)
  };

  // The first "encoding" attribute counts, as the tokenizer drops later duplicates.
  void NoteEncoding(std::string_view name, std::string_view value, bool& seen, Attributes& a) {
    if (seen || !EqualsIgnoreCase(name, "encoding")) return;
    seen = true;
    a.unsure_encoding = value.find('&') != std::string_view::npos;
    a.html_encoding = EqualsIgnoreCase(value, "text/html") ||
                      EqualsIgnoreCase(value, "application/xhtml+xml");
  }

  void Text(size_t begin, size_t end, TextMode mode = TextMode::kData) {
    // U+0000 is dropped by the tree builder (but in foreign content, where it is U+FFFD).
    bool whitespace_only = true;
    bool null_only = true;
    for (size_t i = begin; i < end && whitespace_only; ++i) {
      whitespace_only = IsWhitespace(in_[i]) || in_[i] == '\0';
      null_only = null_only && in_[i] == '\0';
    }
    if (!whitespace_only || null_only) seen_content_ = true;
    if (null_only && !model_.InForeignContent()) {
      model_.NullText();
    } else {
      whitespace_only = whitespace_only && !null_only;
      if (!whitespace_only && model_.WouldFosterParent(nullptr)) listener_.Reordered();
      model_.Text(whitespace_only);
    }
    // A frameset document drops text (but whitespace, which is no text to a crawler).
    if (!model_.InFrameset()) {
      listener_.Text(begin, end, mode, model_.InHead(), model_.InForeignContent());
    }
  }

  // Handles the markup starting at in_[lt] == '<'; returns where scanning resumes.
  size_t Markup(size_t lt) {
    const size_t n = in_.size();
    if (lt + 1 >= n) {
      Text(lt, n);
      return n;
    }
    const char c = in_[lt + 1];
    if (c == '!') {
      if (in_.compare(lt, 4, "<!--") == 0) {
        const size_t end = SkipComment(lt + 4);
        Defang(lt + 4, end);
        return end;
      }
      if (!seen_content_ && StartsWithIgnoreCase(in_.substr(lt + 2), "doctype")) {
        const size_t end = SkipPast('>', lt + 2);
        Doctype(in_.substr(lt + 9, end - (lt + 9)));
        seen_content_ = true;
        return end;
      }
      if (model_.CurrentNodeIsForeign() && in_.compare(lt, 9, "<![CDATA[") == 0) {
        const size_t close = in_.find("]]>", lt + 9);
        const size_t end = close == std::string_view::npos ? n : close;
        Defang(lt + 9, end);
        if (end > lt + 9) listener_.Cdata(lt + 9, end);
        return close == std::string_view::npos ? n : close + 3;
      }
      return SkipPast('>', lt + 2);
    }
    if (c == '?') return SkipPast('>', lt + 2);
    if (c == '/') {
      if (lt + 2 >= n) {
        Text(lt, n, TextMode::kRcdata);  // "</" at the end of the input is text
        return n;
      }
      if (IsAlpha(in_[lt + 2])) return Tag(lt, /*end_tag=*/true);
      return SkipPast('>', lt + 2);  // "</>" and bogus comments
    }
    if (IsAlpha(c)) return Tag(lt, /*end_tag=*/false);
    Text(lt, lt + 1);
    return lt + 1;
  }

  // A DOCTYPE first in the document, `rest` after "<!DOCTYPE" (up to and with its '>'): sets
  // the quirks mode, as far as the model needs it.
  void Doctype(std::string_view rest) {
    rest = TrimAsciiWhitespace(rest.substr(0, rest.find('>')));
    if (!EqualsIgnoreCase(rest.substr(0, 4), "html")) return;  // quirks (the default)
    model_.SetQuirks(TrimAsciiWhitespace(rest.substr(4)).empty() ? TreeModel::Quirks::kNo
                                                                 : TreeModel::Quirks::kUnsure);
  }

  size_t SkipPast(char c, size_t from) const {
    const size_t at = in_.find(c, from);
    return at == std::string_view::npos ? in_.size() : at + 1;
  }

  // `from` is just after "<!--".
  size_t SkipComment(size_t from) const {
    if (in_.compare(from, 1, ">") == 0) return from + 1;   // <!-->
    if (in_.compare(from, 2, "->") == 0) return from + 2;  // <!--->
    const size_t a = in_.find("-->", from);
    const size_t b = in_.find("--!>", from);
    if (a == std::string_view::npos && b == std::string_view::npos) return in_.size();
    return a <= b ? a + 3 : b + 4;
  }

  // Reads attributes from `p` (just after the tag name) to the end of the tag, dropping those
  // past the limit; the kept ones go to attributes_. A tag cut by the end of the input is
  // discarded by the tokenizer, but only after it has read (and compared) all its attributes,
  // so the excess goes all the same.
  Attributes ReadAttributes(size_t p) {
    const size_t n = in_.size();
    Attributes a;
    attributes_.clear();
    size_t drop_from = std::string_view::npos;
    size_t tag_close = std::string_view::npos;
    auto cut_by_end_of_input = [&] {
      if (drop_from != std::string_view::npos) {
        listener_.DroppedAttributes(drop_from, n, a.count - limits_.max_attributes);
        report_.dropped_attributes += a.count - limits_.max_attributes;
      }
      a.end = std::string_view::npos;
      return a;
    };
    bool seen_encoding = false;
    while (tag_close == std::string_view::npos) {
      while (p < n && IsWhitespace(in_[p])) ++p;
      if (p >= n) return cut_by_end_of_input();
      if (in_[p] == '>') {
        tag_close = p;
        break;
      }
      if (in_[p] == '/') {
        if (p + 1 < n && in_[p + 1] == '>') {
          a.self_closing = true;
          tag_close = p++;
          break;
        }
        ++p;
        continue;
      }
      if (++a.count == limits_.max_attributes + 1) drop_from = p;
      // Name: the first character may be '=', the rest ends at whitespace, '/', '>' or '='.
      const size_t name_begin = p;
      uint32_t h = Fnv1a(kFnvBasis, Lower(in_[p++]));
      while (p < n && !IsWhitespace(in_[p]) && in_[p] != '/' && in_[p] != '>' && in_[p] != '=') {
        h = Fnv1a(h, Lower(in_[p++]));
      }
      const std::string_view name = in_.substr(name_begin, p - name_begin);
      std::string_view value;
      size_t q = p;
      while (q < n && IsWhitespace(in_[q])) ++q;
      if (q < n && in_[q] == '=') {
        p = q + 1;
        while (p < n && IsWhitespace(in_[p])) ++p;
        if (p >= n) return cut_by_end_of_input();
        h = Fnv1a(h, '=');
        if (in_[p] == '"' || in_[p] == '\'') {
          const size_t close = in_.find(in_[p], p + 1);
          if (close == std::string_view::npos) return cut_by_end_of_input();
          for (size_t i = p + 1; i < close; ++i) h = Fnv1a(h, static_cast<unsigned char>(in_[i]));
          value = in_.substr(p + 1, close - p - 1);
          p = close + 1;
        } else {
          const size_t value_begin = p;
          while (p < n && !IsWhitespace(in_[p]) && in_[p] != '>') {
            h = Fnv1a(h, static_cast<unsigned char>(in_[p++]));
          }
          value = in_.substr(value_begin, p - value_begin);
        }
      } else {
        p = q;
      }
      NoteEncoding(name, value, seen_encoding, a);
      a.font_attributes = a.font_attributes || EqualsIgnoreCase(name, "color") ||
                          EqualsIgnoreCase(name, "face") || EqualsIgnoreCase(name, "size");
      // A sum of mixed per-attribute hashes does not depend on attribute order.
      a.hash += h * 0x9E3779B1u;
      if (a.count <= limits_.max_attributes) attributes_.push_back(ScannedAttribute{name, value});
    }
    a.end = p + 1;
    if (drop_from != std::string_view::npos) {
      listener_.DroppedAttributes(drop_from, tag_close, a.count - limits_.max_attributes);
      report_.dropped_attributes += a.count - limits_.max_attributes;
    }
    return a;
  }

  size_t Tag(size_t lt, bool end_tag) {
    const size_t n = in_.size();
    seen_content_ = true;
    size_t p = lt + (end_tag ? 2 : 1);
    char name[kMaxKnownTagName];
    size_t len = 0;
    uint32_t name_hash = kFnvBasis;
    while (p < n && !IsWhitespace(in_[p]) && in_[p] != '/' && in_[p] != '>') {
      const unsigned char c = Lower(in_[p++]);
      name_hash = Fnv1a(name_hash, c);
      if (len < kMaxKnownTagName) name[len] = static_cast<char>(c);
      ++len;
    }
    const Attributes attributes = ReadAttributes(p);
    if (attributes.end == std::string_view::npos) return n;  // EOF in a tag: discarded
    TagToken token;
    token.tag = len <= kMaxKnownTagName ? gumbo_tagn_enum(name, static_cast<unsigned>(len))
                                        : GUMBO_TAG_UNKNOWN;
    token.name_hash = name_hash;
    token.attr_hash = attributes.hash;
    token.self_closing = attributes.self_closing;
    token.html_encoding = attributes.html_encoding;
    token.font_attributes = attributes.font_attributes;
    ScannedTag scanned;
    scanned.tag = token.tag;
    scanned.end_tag = end_tag;
    scanned.self_closing = attributes.self_closing;
    scanned.attributes = &attributes_;
    if (end_tag) {
      if (model_.WouldFosterParent(nullptr) &&
          (token.tag == GUMBO_TAG_P || token.tag == GUMBO_TAG_BR)) {
        listener_.Reordered();  // they insert an element, which is foster-parented
      }
      // In foreign content </p> and </br> break out to the HTML rules (HTML 13.2.6.5), where
      // they may insert an element; Gumbo 0.10 does not always agree with the model there.
      if (model_.CurrentNodeIsForeign() &&
          (token.tag == GUMBO_TAG_P || token.tag == GUMBO_TAG_BR)) {
        listener_.Unmodelled();
      }
      model_.EndTag(token);
      listener_.EndTag(scanned, model_.insertion());
      return attributes.end;
    }
    token.user = listener_.StartTagData(scanned);
    const bool in_foreign = model_.CurrentNodeIsForeign();
    if (model_.WouldFosterParent(&token)) listener_.Reordered();
    const StartResult result = token.tag == GUMBO_TAG_ANNOTATION_XML && attributes.unsure_encoding
                                   ? StartResult::kDrop
                                   : model_.StartTag(token);
    const Insertion insertion =
        result == StartResult::kDrop ? Insertion::kDropped : model_.insertion();
    if (in_foreign && insertion == Insertion::kHtml) listener_.Unmodelled();
    listener_.StartTag(scanned, insertion);
    if (result == StartResult::kKeep && IsRawText(token.tag) && token.tag != GUMBO_TAG_PLAINTEXT) {
      // A raw text element the model says the parser will not read as raw text (foreign
      // content, ignored in a select or a frameset). Should the model be wrong, its content
      // must not turn into markup the model never saw.
      const size_t end = RawTextEnd(attributes.end, std::string_view(name, len));
      const bool escapable = token.tag == GUMBO_TAG_TITLE || token.tag == GUMBO_TAG_TEXTAREA;
      Defang(attributes.end, end, escapable);
      // To the parser (if the model is right) this is text now; the end tag comes next.
      if (end > attributes.end) {
        Text(attributes.end, end, escapable ? TextMode::kRcdata : TextMode::kData);
      }
      return end;
    }
    switch (result) {
      case StartResult::kDrop:
        // The whole tag goes; attribute drops inside it are subsumed.
        listener_.DroppedTag(lt, attributes.end);
        ++report_.dropped_start_tags;
        return attributes.end;
      case StartResult::kKeep:
        return attributes.end;
      case StartResult::kPlaintext:
        Defang(attributes.end, n);
        listener_.RawText(token.tag, attributes.end, n);
        return n;
      case StartResult::kRawText:
        // <title> and <textarea> (RCDATA) decode character references: "&lt;" keeps their
        // text as it was.
        return SkipRawText(token.tag, attributes.end, std::string_view(name, len),
                           token.tag == GUMBO_TAG_TITLE || token.tag == GUMBO_TAG_TEXTAREA);
    }
    return attributes.end;
  }

  // Where raw text that starts at `from` ends: the "</name" of the first appropriate end tag,
  // or the end of the input.
  size_t RawTextEnd(size_t from, std::string_view name) const {
    const size_t n = in_.size();
    for (size_t p = from;;) {
      const size_t lt = in_.find("</", p);
      if (lt == std::string_view::npos) return n;
      const size_t after_name = lt + 2 + name.size();
      if (after_name < n && EqualsIgnoreCase(in_.substr(lt + 2, name.size()), name) &&
          (IsWhitespace(in_[after_name]) || in_[after_name] == '/' || in_[after_name] == '>')) {
        return lt;
      }
      p = lt + 2;
    }
  }

  // Skips raw text up to and including the matching end tag, defanging it on the way.
  size_t SkipRawText(GumboTag tag, size_t from, std::string_view name, bool escapable) {
    const size_t end = RawTextEnd(from, name);
    Defang(from, end, escapable);
    listener_.RawText(tag, from, end);
    if (end == in_.size()) return end;
    const size_t close = ReadAttributes(end + 2 + name.size()).end;
    attributes_.clear();
    return close == std::string_view::npos ? in_.size() : close;
  }

  // Text the model skips (raw text, comments, CDATA) must never be markup to the parser, even
  // where the model misjudges the parser's state: every '<' that could open a tag, a comment
  // or an end tag there is reported (LimitNesting makes it "&lt;" where references are
  // decoded, `escapable`, else a space). Where the model is right, that changes only script
  // and style source, comments, and "<x"-like text in <xmp>.
  void Defang(size_t begin, size_t end, bool escapable = false) {
    for (size_t i = in_.find('<', begin); i < end && i != std::string_view::npos;
         i = in_.find('<', i + 1)) {
      if (!CouldOpenMarkup(in_, i)) continue;
      ++report_.defanged;
      listener_.Defanged(i, escapable);
    }
  }

  const std::string_view in_;
  const NestingLimits limits_;
  ScanListener& listener_;
  TreeModel model_;
  std::vector<ScannedAttribute> attributes_;  // of the current tag
  bool seen_content_ = false;  // a token other than whitespace, comments and a DOCTYPE
  ScanReport report_;
};

}  // namespace

ScanReport ScanHtml(std::string_view html, const NestingLimits& limits, ScanListener& listener) {
  return Scanner(html, limits, listener).Run();
}

}  // namespace crawler::html::internal
