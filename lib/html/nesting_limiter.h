// LimitNesting: rewrites UTF-8 HTML before it reaches Gumbo so that parsing it takes bounded
// time.
//
// Why: Gumbo 0.10's tree builder does the HTML Standard's "has an element in scope" walks over
// the whole stack of open elements for most tokens, and its tokenizer checks every new attribute
// against all earlier ones of the same tag. Both are linear per token, so hostile input is
// quadratic: 40,000 nested <div> take 12 s, a tag with 40,000 attributes 4 s (measured on the
// development machine). Gumbo has no depth or attribute limit of its own.
//
// How: a single pass (internal/html_scanner.h, shared with the tokenizer extractor) tokenises
// the markup as the HTML tokenizer does (tags, attributes,
// comments, raw text) and keeps a model of Gumbo's tree builder: the stack of open elements
// with namespaces, implied end tags, scopes and the special category, table and select modes,
// foreign content and its integration points, the form element pointer, and the list of active
// formatting elements (markers, reconstruction, Noah's Ark, the adoption agency's outer loop) --
// following Gumbo 0.10 where it differs from today's spec (checked against its behaviour).
// The edits:
//   - a start tag that would push the modelled depth past `max_depth` is removed (Blink stops
//     nesting at 512 the same way): the element's content stays, in the enclosing element (a
//     text '<' just before a removed tag becomes "&lt;", so that it opens no new markup);
//   - a formatting start tag (b, i, font, ...) is removed when 32 formatting elements are
//     already listed after the last marker: every text run re-opens the closed ones, so their
//     number is per-token work (Noah's Ark limits identical ones, not distinct ones);
//   - except <a> start tags, which are kept past both limits (up to max_depth + 35), as
//     browsers keep the links: an <a> closes the one before it unless a marker (td, object,
//     ...) lies between, so links do not nest deeper than the markers around them;
//   - attributes of one tag beyond `max_attributes` are removed;
//   - where the model reads text without looking for tags (raw text such as <script> and
//     <textarea>, comments, CDATA, and <template> contents, which are inert to a crawler),
//     every '<' that could start markup becomes a space ("&lt;" in <title> and <textarea>,
//     which decode references): should the model misjudge the parser's state, the parser still
//     finds no markup there that the model missed;
//   - <frameset> unless it certainly starts a frameset document, <annotation-xml> whose
//     encoding the model would have to decode, and SVG/MathML elements named like HTML table,
//     select or document-structure elements (which Gumbo confuses with the HTML ones; one such
//     input fails a Gumbo assertion) are removed.
// The model is an estimate, not a second parser. On ordinary pages nothing but the defanging
// changes (121,000 local documentation pages: no tag dropped). On hostile pages the stack Gumbo
// builds stays within about twice `max_depth`. That is checked, not proven: fuzz_html checks
// the parsed tree's depth, the HostileNesting tests Gumbo's depth on patterns that once slipped
// through, and (during development) random tag soup was compared with the stack Gumbo records
// in its parse errors; small transient underestimates remain in rare adoption-agency cases.
// Memory is bounded separately and exactly (gumbo_tree.h).
//
// Thread-safety: pure function; safe to call concurrently on different strings.
#ifndef CRAWLER_LIB_HTML_NESTING_LIMITER_H_
#define CRAWLER_LIB_HTML_NESTING_LIMITER_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace crawler::html {

struct NestingLimits {
  // Deepest stack of open elements (including the implied html and body) allowed to build.
  // Gumbo's per-token work grows linearly with it. Blink caps at 512; real pages rarely pass 60.
  size_t max_depth = 256;
  // Attributes kept per tag; Gumbo's duplicate check is quadratic in this. Real tags have < 30.
  size_t max_attributes = 64;
};

struct NestingLimitReport {
  uint64_t dropped_start_tags = 0;  // start tags removed (depth, formatting list, see above)
  uint64_t dropped_attributes = 0;  // attributes removed for count
  uint64_t defanged = 0;            // '<' in raw text, comments and CDATA made spaces
  size_t max_modelled_depth = 0;    // deepest stack the model saw (after the edits)
  size_t final_modelled_depth = 0;  // the modelled stack at the end of the input
};

// Applies the limits to `html` (UTF-8) in place. Defanging changes bytes in place; the string
// is copied only when something is dropped.
NestingLimitReport LimitNesting(std::string& html, const NestingLimits& limits);

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_NESTING_LIMITER_H_
