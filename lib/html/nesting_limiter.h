// LimitNesting: rewrites UTF-8 HTML before it reaches Gumbo so that parsing it takes bounded
// time.
//
// Why: Gumbo 0.10's tree builder does the HTML Standard's "has an element in scope" walks over
// the whole stack of open elements for most tokens, and its tokenizer checks every new attribute
// against all earlier ones of the same tag. Both are linear per token, so hostile input is
// quadratic: 40,000 nested <div> take 12 s, a tag with 40,000 attributes 4 s (measured on the
// development machine). Gumbo has no depth or attribute limit of its own.
//
// How: a single pass tokenises the markup roughly as the HTML tokenizer does (tags, attributes,
// comments, raw text elements) and keeps a model of the tree builder's stack of open elements:
// implied end tags (p, li, dd/dt, option, table sections and cells), scope boundaries, the
// special category, foreign content (svg, math) and the list of active formatting elements
// (reconstruction, the adoption agency's furthest block, Noah's Ark). Two edits follow:
//   - a start tag that would push the modelled depth past `max_depth` is removed from the text,
//     as Blink's parser stops nesting at 512 (its tag name and attributes are dropped, the
//     element's content stays and becomes part of the enclosing element);
//   - attributes of one tag beyond `max_attributes` are removed.
// Where the model skips text without looking for tags (raw text elements such as <script> and
// <textarea>, comments, CDATA), every '<' that could start markup becomes a space: should the
// model misjudge the parser's state there, the parser still finds no tags the model missed.
// (Script and style source, comments, and tag-like text in <title>/<textarea>/<xmp> change;
// nothing a crawler reads.) Likewise <frameset> is removed unless it certainly starts a
// frameset document.
// The model is an estimate, not a second parser: on ordinary pages (depth well under 100,
// attributes well under 64) nothing but the defanging changes; on hostile pages the depth
// Gumbo builds stays within a small factor of `max_depth` (reconstructed formatting elements
// come on top), which is what bounds the work. Fuzzing checks that bound (tests/fuzz). Memory
// is bounded separately (see gumbo_tree.h).
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
  uint64_t dropped_start_tags = 0;  // start tags removed for depth
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
