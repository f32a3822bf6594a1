// Categories of HTML elements, by Gumbo tag, as the HTML Standard's tree construction (13.2.4
// and 13.2.6) and Gumbo 0.10 use them: void and formatting elements, the special category,
// elements that close a p, end foreign content, and so on. Used by the scanner's model
// of Gumbo's tree builder (html_scanner.cc). HTML namespace only.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTML_INTERNAL_HTML_ELEMENTS_H_
#define CRAWLER_LIB_HTML_INTERNAL_HTML_ELEMENTS_H_

#include <gumbo.h>

namespace crawler::html::internal {

// Void elements: never open (area, br, img, input, meta, ...).
bool IsVoid(GumboTag t);

// Formatting elements: a, b, big, code, em, font, i, nobr, s, small, strike, strong, tt, u.
bool IsFormatting(GumboTag t);

// h1 to h6.
bool IsHeading(GumboTag t);

// The "special" category, HTML namespace.
bool IsSpecialHtml(GumboTag t);

// Elements that push a marker onto the list of active formatting elements.
bool IsMarkerTag(GumboTag t);

// Start tags that "close a p element" if one is in button scope.
bool ClosesP(GumboTag t);

// End tags handled by "if the stack does not have the element in scope ignore, else pop until
// it is popped" in the "in body" insertion mode.
bool IsScopedBlock(GumboTag t);

// tbody, thead, tfoot.
bool IsTableSection(GumboTag t);

// Start tags that only mean something inside a table (ignored in body).
bool IsTablePart(GumboTag t);

// Void start tags that reconstruct the active formatting elements first.
bool VoidReconstructs(GumboTag t);

// Non-void start tags of "in body" that do not reconstruct the active formatting elements.
// Reconstructing where the parser does not is as wrong as the reverse: the model would hold
// open what the parser keeps closed, and a later end tag would close more in the model.
bool SkipsReconstruction(GumboTag t);

// Elements whose content the tokenizer reads as raw text / RCDATA (scripting disabled, as in
// Gumbo: <noscript> content is markup). And <template>: its content is inert, ExtractPage skips
// it, so the scanner treats it as raw text (defanged, see html_scanner.h), which keeps the
// template insertion modes out of the model.
bool IsRawText(GumboTag t);

// Start tags that end foreign content (13.2.6.5, "any other start tag" exceptions).
bool BreaksOutOfForeign(GumboTag t);

// Tags whose HTML elements steer the insertion mode.
bool IsStructuralHtmlName(GumboTag t);

// Elements whose text is not rendered (the visible-text extraction of both parser paths skips
// them; <script> and <style> in any namespace).
bool HidesText(GumboTag t);

// Elements rendered as blocks (HTML 15.3 "Non-replaced elements"), whose text is set apart.
bool IsBlock(GumboTag t);

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_HTML_ELEMENTS_H_
