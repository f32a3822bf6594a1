// The model of the tree builder (tree_model.h): its insertion modes and algorithms.
#include "lib/html/internal/tree_model.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "lib/html/internal/html_elements.h"

namespace crawler::html::internal {
namespace {

// Formatting elements (b, i, font, a, ...) allowed in the list of active formatting elements
// after its last marker; real pages have a handful.
constexpr size_t kMaxListedFormatting = 32;
// How far past max_depth an <a> may still open (see StartTagInBody): the formatting elements
// it re-opens, one more listed <a>, itself, and the <a> it closes.
constexpr size_t kMaxLinkAllowance = kMaxListedFormatting + 3;

}  // namespace

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

bool TreeModel::WouldFosterParent(const TagToken* t) const {
  if (stack_.empty() || document_ == Document::kFrameset) return false;
  size_t top = stack_.size() - 1;
  // "in column group": anything but <col> and <template> closes the column group and is
  // processed "in table" (<table><col><div> puts the div before the table).
  if (IsHtml(stack_[top], GUMBO_TAG_COLGROUP) && top > 0 &&
      (t == nullptr || (t->tag != GUMBO_TAG_COL && t->tag != GUMBO_TAG_TEMPLATE))) {
    --top;
  }
  const Entry& current = stack_[top];
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

StartResult TreeModel::StartTagImpl(const TagToken& t) {
  if (document_ == Document::kFrameset) return StartTagInFrameset(t);
  if (t.tag == GUMBO_TAG_FRAMESET) {
    // A frameset replaces the body only if nothing but head content came before (and some
    // body content that does not clear the parser's frameset-ok flag): rather than model
    // that flag, the limiter removes every <frameset> it cannot be sure of, so the parser
    // never switches modes behind the model's back.
    if (document_ == Document::kBody) return StartResult::kDrop;
    // Too deep even alone (a max_depth under 3): dropped before the switch, or the model would
    // be in a frameset the parser never sees.
    if (kImpliedDepth + 1 > max_depth_) return StartResult::kDrop;
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

void TreeModel::EndTag(const TagToken& t) {
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

void TreeModel::Text(bool whitespace_only) {
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

bool TreeModel::KeepsHead(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT:
    case GUMBO_TAG_BGSOUND: case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_TITLE:
    case GUMBO_TAG_STYLE: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_TEMPLATE:
      return true;
    default:
      return false;
  }
}

StartResult TreeModel::StartTagInFrameset(const TagToken& t) {
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

bool TreeModel::IsScopeBoundary(const Entry& e, Scope scope) {
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

size_t TreeModel::TableContext() const {
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

void TreeModel::ClearListToLastMarker() {
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

void TreeModel::Push(const TagToken& t, Ns ns, bool implied) {
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

void TreeModel::PopFrom(size_t index) {
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

void TreeModel::Reconstruct() {
  for (size_t i = ReconstructFrom(); i < list_.size(); ++i) {
    ListItem& item = list_[i];
    item.open = true;
    stack_.push_back(Entry{item.tag, item.name_hash, item.attr_hash, Ns::kHtml, false, item.id,
                           0, item.user},
                     /*implied=*/false, /*clone=*/true);
  }
  NoteDepth();
}

void TreeModel::NoahsArk(const TagToken& t) {
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

void TreeModel::AnyOtherEndTag(const TagToken& t) {
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

void TreeModel::AdoptionAgency(const TagToken& t) {
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

bool TreeModel::HasImpliedEndTag(const Entry& e) {
  if (e.foreign()) return false;
  switch (e.tag) {
    case GUMBO_TAG_DD: case GUMBO_TAG_DT: case GUMBO_TAG_LI: case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_P: case GUMBO_TAG_RP: case GUMBO_TAG_RT:
      return true;
    default:
      return false;
  }
}

void TreeModel::CloseListItem(GumboTag a, GumboTag b) {
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

StartResult TreeModel::StartTableStructure(const TagToken& t) {
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

// What a start tag "in body" closes (or runs) before its element is inserted: an open list
// item, a table in a table, a listed <a>, a nobr in scope, ruby's implied end tags, a button,
// an option.
void TreeModel::CloseForStartTag(const TagToken& t) {
  switch (t.tag) {
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
}

StartResult TreeModel::StartTagInBody(const TagToken& t) {
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

  CloseForStartTag(t);
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

StartResult TreeModel::StartTagInSelect(const TagToken& t, size_t select) {
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

void TreeModel::EndTagInSelect(const TagToken& t, size_t select) {
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

void TreeModel::EndTagInBody(const TagToken& t) {
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

}  // namespace crawler::html::internal
