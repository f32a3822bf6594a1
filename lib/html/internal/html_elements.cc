#include "lib/html/internal/html_elements.h"

namespace crawler::html::internal {

bool IsVoid(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_AREA: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND:
    case GUMBO_TAG_BR: case GUMBO_TAG_COL: case GUMBO_TAG_EMBED: case GUMBO_TAG_FRAME:
    case GUMBO_TAG_HR: case GUMBO_TAG_IMAGE: case GUMBO_TAG_IMG: case GUMBO_TAG_INPUT:
    case GUMBO_TAG_KEYGEN: case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_PARAM:
    case GUMBO_TAG_SOURCE: case GUMBO_TAG_TRACK: case GUMBO_TAG_WBR: case GUMBO_TAG_MENUITEM:
      return true;
    default:
      return false;
  }
}

bool IsFormatting(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_A: case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_CODE:
    case GUMBO_TAG_EM: case GUMBO_TAG_FONT: case GUMBO_TAG_I: case GUMBO_TAG_NOBR:
    case GUMBO_TAG_S: case GUMBO_TAG_SMALL: case GUMBO_TAG_STRIKE: case GUMBO_TAG_STRONG:
    case GUMBO_TAG_TT: case GUMBO_TAG_U:
      return true;
    default:
      return false;
  }
}

bool IsHeading(GumboTag t) {
  return t == GUMBO_TAG_H1 || t == GUMBO_TAG_H2 || t == GUMBO_TAG_H3 || t == GUMBO_TAG_H4 ||
         t == GUMBO_TAG_H5 || t == GUMBO_TAG_H6;
}

// The "special" category, HTML namespace.
bool IsSpecialHtml(GumboTag t) {
  if (IsVoid(t) || IsHeading(t)) return true;
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_APPLET: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY: case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_CENTER: case GUMBO_TAG_COLGROUP: case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR: case GUMBO_TAG_DIV: case GUMBO_TAG_DL:
    case GUMBO_TAG_DT: case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE: case GUMBO_TAG_FOOTER: case GUMBO_TAG_FORM: case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_HEAD: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_HTML:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_LI: case GUMBO_TAG_LISTING: case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MARQUEE: case GUMBO_TAG_MENU: case GUMBO_TAG_NAV: case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_OBJECT: case GUMBO_TAG_OL:
    case GUMBO_TAG_P: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_PRE: case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_SECTION: case GUMBO_TAG_SELECT: case GUMBO_TAG_STYLE:
    case GUMBO_TAG_SUMMARY: case GUMBO_TAG_TABLE: case GUMBO_TAG_TBODY: case GUMBO_TAG_TD:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_TFOOT: case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD: case GUMBO_TAG_TITLE: case GUMBO_TAG_TR: case GUMBO_TAG_UL:
    case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

// Elements that push a marker onto the list of active formatting elements.
bool IsMarkerTag(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_APPLET: case GUMBO_TAG_MARQUEE: case GUMBO_TAG_OBJECT: case GUMBO_TAG_TD:
    case GUMBO_TAG_TH: case GUMBO_TAG_CAPTION: case GUMBO_TAG_TEMPLATE:
      return true;
    default:
      return false;
  }
}

// Start tags that "close a p element" if one is in button scope.
bool ClosesP(GumboTag t) {
  if (IsHeading(t)) return true;
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_CENTER: case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR: case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE: case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_MAIN: case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV: case GUMBO_TAG_OL: case GUMBO_TAG_P: case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY: case GUMBO_TAG_UL: case GUMBO_TAG_PRE: case GUMBO_TAG_LISTING:
    case GUMBO_TAG_FORM: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_TABLE: case GUMBO_TAG_HR:
    case GUMBO_TAG_XMP: case GUMBO_TAG_LI: case GUMBO_TAG_DD: case GUMBO_TAG_DT:
      return true;
    default:
      return false;
  }
}

// End tags handled by "if the stack does not have the element in scope ignore, else pop until
// it is popped" in the "in body" insertion mode.
bool IsScopedBlock(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BUTTON: case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DETAILS: case GUMBO_TAG_DIR: case GUMBO_TAG_DIV: case GUMBO_TAG_DL:
    case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MAIN: case GUMBO_TAG_MENU: case GUMBO_TAG_NAV: case GUMBO_TAG_OL:
    case GUMBO_TAG_PRE: case GUMBO_TAG_SECTION: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_UL:
    case GUMBO_TAG_DD: case GUMBO_TAG_DT:
      return true;
    default:
      return false;
  }
}

bool IsTableSection(GumboTag t) {
  return t == GUMBO_TAG_TBODY || t == GUMBO_TAG_THEAD || t == GUMBO_TAG_TFOOT;
}

// Start tags that only mean something inside a table (ignored in body).
bool IsTablePart(GumboTag t) {
  return IsTableSection(t) || t == GUMBO_TAG_TR || t == GUMBO_TAG_TD || t == GUMBO_TAG_TH ||
         t == GUMBO_TAG_CAPTION || t == GUMBO_TAG_COLGROUP;
}

// Void start tags that reconstruct the active formatting elements first.
bool VoidReconstructs(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_AREA: case GUMBO_TAG_BR: case GUMBO_TAG_EMBED: case GUMBO_TAG_IMG:
    case GUMBO_TAG_IMAGE: case GUMBO_TAG_KEYGEN: case GUMBO_TAG_WBR: case GUMBO_TAG_INPUT:
      return true;
    default:
      return false;
  }
}

// Non-void start tags of "in body" that do not reconstruct the active formatting elements.
// Reconstructing where the parser does not is as wrong as the reverse: the model would hold
// open what the parser keeps closed, and a later end tag would close more in the model.
bool SkipsReconstruction(GumboTag t) {
  if (ClosesP(t) && t != GUMBO_TAG_XMP) return true;
  switch (t) {
    case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BODY: case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_TITLE:
    case GUMBO_TAG_RP: case GUMBO_TAG_RT:
      return true;
    default:
      return false;
  }
}

// Elements whose content the tokenizer reads as raw text / RCDATA (scripting disabled, as in
// Gumbo: <noscript> content is markup). And <template>: its content is inert, ExtractPage skips
// it, so the scanner treats it as raw text (defanged, see html_scanner.h), which keeps the
// template insertion modes out of the model.
bool IsRawText(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_XMP: case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_TITLE: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_TEMPLATE:
      return true;
    default:
      return false;
  }
}

// Start tags that end foreign content (13.2.6.5, "any other start tag" exceptions).
bool BreaksOutOfForeign(GumboTag t) {
  if (IsHeading(t)) return true;
  switch (t) {
    case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY:
    case GUMBO_TAG_BR: case GUMBO_TAG_CENTER: case GUMBO_TAG_CODE: case GUMBO_TAG_DD:
    case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_EM:
    case GUMBO_TAG_EMBED: case GUMBO_TAG_HEAD: case GUMBO_TAG_HR: case GUMBO_TAG_I:
    case GUMBO_TAG_IMG: case GUMBO_TAG_LI: case GUMBO_TAG_LISTING: case GUMBO_TAG_MENU:
    case GUMBO_TAG_META: case GUMBO_TAG_NOBR: case GUMBO_TAG_OL: case GUMBO_TAG_P:
    case GUMBO_TAG_PRE: case GUMBO_TAG_RUBY: case GUMBO_TAG_S: case GUMBO_TAG_SMALL:
    case GUMBO_TAG_SPAN: case GUMBO_TAG_STRONG: case GUMBO_TAG_STRIKE: case GUMBO_TAG_SUB:
    case GUMBO_TAG_SUP: case GUMBO_TAG_TABLE: case GUMBO_TAG_TT: case GUMBO_TAG_U:
    case GUMBO_TAG_UL: case GUMBO_TAG_VAR:
      return true;
    default:
      return false;
  }
}

// Tags whose HTML elements steer the insertion mode.
bool IsStructuralHtmlName(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_HTML: case GUMBO_TAG_HEAD: case GUMBO_TAG_BODY: case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_SELECT: case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_TABLE: case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_COLGROUP: case GUMBO_TAG_COL: case GUMBO_TAG_TBODY: case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TFOOT: case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
      return true;
    default:
      return false;
  }
}

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

}  // namespace crawler::html::internal
