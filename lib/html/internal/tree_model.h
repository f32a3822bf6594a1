// TreeModel: the model of Gumbo 0.10's tree builder that ScanHtml (html_scanner.h) keeps while it
// tokenises: the stack of open elements with namespaces, implied end tags and scopes, the table,
// select, frameset and foreign-content modes, the form element pointer and the list of active
// formatting elements, as far as they decide the depth of the stack and how the tokenizer reads
// what follows (html_scanner.h says what it is for and where it stops following the tree).
// Internal to lib/html: the scanner feeds it tokens; nothing else uses it.
//
// Thread-safety: one model per scan, on one thread.
#ifndef CRAWLER_LIB_HTML_INTERNAL_TREE_MODEL_H_
#define CRAWLER_LIB_HTML_INTERNAL_TREE_MODEL_H_

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/html/internal/html_elements.h"
#include "lib/html/internal/html_scanner.h"

namespace crawler::html::internal {

inline constexpr size_t kNone = static_cast<size_t>(-1);
// <html> and <body> are always open below the modelled stack.
inline constexpr size_t kImpliedDepth = 2;

// Tag names are compared by an FNV-1a hash of their lowercase form.
inline constexpr uint32_t kFnvBasis = 2166136261u;
inline uint32_t Fnv1a(uint32_t h, unsigned char c) { return (h ^ c) * 16777619u; }
inline uint32_t HashName(std::string_view lowercase_name) {
  uint32_t h = kFnvBasis;
  for (char c : lowercase_name) h = Fnv1a(h, static_cast<unsigned char>(c));
  return h;
}

// MathML mi, mo, mn, ms, mtext, annotation-xml and SVG foreignObject, desc, title: the foreign
// members of the special category and of every scope's boundary, and (annotation-xml with a
// condition) the integration points. The namespace matters: an SVG <mtext> is none of these.
bool IsIntegrationTag(Ns ns, GumboTag t);

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

// The model of the tree builder's state.
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
  // modes that defer to it), or a column group in one, and the token is not one those modes
  // handle.
  bool WouldFosterParent(const TagToken* t) const;

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
  StartResult StartTagImpl(const TagToken& t);


 public:
  void EndTag(const TagToken& t);

  // Text made only of U+0000 outside foreign content: the tree builder ignores it (after
  // leaving the head, where it counts as content), without re-opening formatting elements.
  void NullText() {
    if (document_ == Document::kFrameset) return;
    if (head_noscript_) CloseHeadNoscript();
    document_ = Document::kBody;
  }

  void Text(bool whitespace_only);

 private:
  // What the parser has made of the document so far, as far as <frameset> is concerned.
  enum class Document {
    kHead,      // before the body: a <frameset> would replace the (implied) body
    kBody,      // body content, or anything the model is unsure of: <frameset> is removed
    kFrameset,  // a frameset document: nothing but framesets, frames and noframes count
  };

  // Start tags that leave the parser before the body (or in it without content, which the
  // model does not try to tell apart).
  static bool KeepsHead(GumboTag tag);

  void CloseHeadNoscript() {
    head_noscript_ = false;
    if (!stack_.empty() && IsHtml(stack_.back(), GUMBO_TAG_NOSCRIPT)) stack_.pop_back();
  }

  // "in frameset" and "after frameset": everything but these is ignored by the parser.
  StartResult StartTagInFrameset(const TagToken& t);

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

  static bool IsScopeBoundary(const Entry& e, Scope scope);

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
  size_t TableContext() const;

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
  void ClearListToLastMarker();

  void NoteDepth() { max_seen_ = std::max(max_seen_, depth()); }

  void Push(const TagToken& t, Ns ns, bool implied);

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
  void PopFrom(size_t index);

  // Where "reconstruct the active formatting elements" starts re-opening: after the last entry
  // that is a marker or open. Returns list_.size() if there is nothing to re-open.
  size_t ReconstructFrom() const {
    size_t i = list_.size();
    while (i > 0 && list_[i - 1].id != 0 && !list_[i - 1].open) --i;
    return i;
  }

  size_t ReconstructCount() const { return list_.size() - ReconstructFrom(); }

  void Reconstruct();

  // Noah's Ark: at most three identical formatting elements after the last marker; the
  // earliest goes before a fourth is added.
  void NoahsArk(const TagToken& t);

  // Gumbo compares tags here by its enum, so the end tag of any element it does not know (a
  // custom element, say) closes the nearest open element it does not know, whatever its name.
  // Pops to `index` and, if found, clears the list of active formatting elements to the last
  // marker: the end of a cell, caption, applet, marquee, object or template.
  void PopAndClearMarker(size_t index) {
    if (index == kNone) return;
    PopFrom(index);
    ClearListToLastMarker();
  }

  void AnyOtherEndTag(const TagToken& t);

  // The adoption agency algorithm as Gumbo 0.10 runs it (checked against its behaviour; it
  // differs from today's spec), as far as the stack depth is concerned.
  void AdoptionAgency(const TagToken& t);

  // "Generate implied end tags": elements whose end tag may be omitted.
  static bool HasImpliedEndTag(const Entry& e);

  void ClosePInButtonScope() { PopFrom(FindHtmlInScope(GUMBO_TAG_P, Scope::kButton)); }

  // The li / dd / dt start tag loop.
  void CloseListItem(GumboTag a, GumboTag b);

  StartResult StartTableStructure(const TagToken& t);

  void CloseForStartTag(const TagToken& t);
  StartResult StartTagInBody(const TagToken& t);

  StartResult StartTagInSelect(const TagToken& t, size_t select);

  void EndTagInSelect(const TagToken& t, size_t select);

  void EndTagInBody(const TagToken& t);

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

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_TREE_MODEL_H_
