// ScriptNavigationTargets: the literal URLs a snippet of JavaScript navigates to, read without
// running it — what a crawler without a browser can take from inline event handlers
// (<button onclick="location.href='/next'">) and javascript: URLs.
//
// Recognised, where TARGET is a string literal that is the whole expression:
//   location = TARGET               location.href = TARGET
//   location.assign(TARGET)         location.replace(TARGET)
//   window.open(TARGET[, ...])
// `location` may be prefixed by any chain of window., self., top., parent. and document.
// (document.location is the window's Location); window.open needs one of window., self.,
// top., parent.: in an inline handler a bare open() is document.open(), which navigates nowhere.
// An assignment counts only when the literal ends the expression (followed by ; } ) , the end
// of the code, or a new line and another statement): location.href = '/a?id=' + id is not a
// literal and is skipped, as is anything read through a variable, a property of another object
// (frame.location), a declaration (var location = ...), or bracket notation.
//
// String literals: '...', "..." and `...` without ${ substitutions. Escapes \' \" \\ \/ \` and
// \xHH or \uHHHH of printable ASCII are decoded; a literal with any other escape (\n, \u{...},
// non-ASCII escapes, line continuations) is skipped rather than guessed at.
//
// The code is read by a small lexer that knows comments, strings, template literals (with
// nested substitutions) and regular expression literals well enough not to mistake their
// contents for code; it never backtracks, so work is linear in the bytes read, and only the
// first kMaxScriptCodeBytes are read. Code that is not valid JavaScript may still yield
// targets: a browser would run none of it, but the crawler only loses a fetch.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTML_SCRIPT_NAVIGATION_H_
#define CRAWLER_LIB_HTML_SCRIPT_NAVIGATION_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crawler::html {

// Bytes of one handler's code (or of one javascript: URL) that are read. Handlers that navigate
// are a statement or two; 4 KiB also holds those that first push an analytics event.
inline constexpr size_t kMaxScriptCodeBytes = 4 << 10;

// The event handler attributes whose code is read: those that fire when a person activates an
// element (click, tap, key press), the ways real sites attach navigation to elements that are
// not links. Not onload, onchange, onsubmit, onmouseover and the like: their navigations
// happen without a choice of the reader (redirects, hover menus) or depend on the form's
// value, rarely a literal. Lowercase, as HTML attribute names are compared; each view is of a
// string literal, so data() is a C string.
inline constexpr std::array<std::string_view, 12> kNavigationHandlers = {
    "onclick",     "ondblclick",  "onauxclick", "onmousedown", "onmouseup", "onpointerdown",
    "onpointerup", "ontouchstart", "ontouchend", "onkeydown",  "onkeyup",   "onkeypress",
};

// The string literals `code` navigates to (see above), in the order they appear, as JavaScript
// would see them (escapes decoded), not yet resolved as URLs. Reads at most
// kMaxScriptCodeBytes of `code`.
std::vector<std::string> ScriptNavigationTargets(std::string_view code);

// The script of a javascript: URL (`href` as the attribute gives it, character references
// decoded), percent-decoded as a browser does before running it, cut to kMaxScriptCodeBytes of
// the URL; nullopt if `href` is not a javascript: URL. Leading C0 controls and spaces are
// skipped as the URL parser skips them; a scheme broken by tabs or newlines is not recognised.
std::optional<std::string> JavascriptUrlCode(std::string_view href);

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_SCRIPT_NAVIGATION_H_
