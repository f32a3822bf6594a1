// The WHATWG "basic URL parser" (https://url.spec.whatwg.org/#concept-basic-url-parser) for the
// special schemes http and https, and the "URL serializer" that produces Url::href_.
//
// The state machine below keeps the standard's state names and step order, so each case can be
// read side by side with the spec. What is left out is what a Url can never be: the file state
// family, the opaque-path ("cannot-be-a-base-URL") states, "path or authority" (non-special
// schemes) and everything behind a state override (the URL setters). A scheme other than
// http/https is rejected as soon as the scheme state has read it.
//
// Input is treated as bytes. Every byte >= 0x80 is in every percent-encode set, so encoding byte
// by byte is the same as the standard's "UTF-8 percent-encode" for valid UTF-8; bytes that are not
// valid UTF-8 are percent-encoded as they are (a browser would first have replaced them with
// U+FFFD), which keeps links to legacy non-UTF-8 file names working.
//
// Layout of Url::href_ and its offsets, e.g. "https://u:p@host:8080/p/q?x=1#f":
//   scheme_end_      -> ':' after the scheme ("//" follows)
//   username [username_begin_, username_end_), password [password_begin_, password_end_); both
//     empty ranges at host_begin_ when there are no credentials
//   host [host_begin_, host_end_), port [port_begin_, port_end_) (empty range at host_end_ when
//   the port is the default), path [path_begin_ = port_end_, path_end_),
//   query from query_begin_ (after '?'), fragment from fragment_begin_ (after '#').
#include "lib/url/url.h"

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/encoding/ascii.h"
#include "lib/url/internal/host_parser.h"
#include "lib/url/internal/percent_encoding.h"

namespace crawler::url {

using encoding::AsAbsl;
using encoding::EqualsIgnoreCase;
using internal::AppendPercentEncoded;
using internal::EncodeSet;

namespace {

// Longer input is refused before any work: Chromium refuses URLs above 2 MiB as well, and the
// bound keeps every offset of Url far below UINT32_MAX (the output is at most 3x the input).
constexpr size_t kMaxInputBytes = size_t{2} << 20;

constexpr int kEof = -1;

absl::Status Failure(std::string_view validation_error, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(AsAbsl(what), " (", AsAbsl(validation_error), ")"));
}

// The spec's "C0 control or space".
bool IsC0ControlOrSpace(char c) { return static_cast<unsigned char>(c) <= 0x20; }
bool IsAsciiTabOrNewline(char c) { return c == '\t' || c == '\n' || c == '\r'; }

bool IsSingleDotSegment(std::string_view s) { return s == "." || EqualsIgnoreCase(s, "%2e"); }

bool IsDoubleDotSegment(std::string_view s) {
  return s == ".." || EqualsIgnoreCase(s, ".%2e") || EqualsIgnoreCase(s, "%2e.") ||
         EqualsIgnoreCase(s, "%2e%2e");
}

// Where the path, query and fragment states stop treating code points as content.
bool EndsPathSegment(char c) { return c == '/' || c == '\\' || c == '?' || c == '#'; }
bool EndsQuery(char c) { return c == '#'; }
bool EndsFragment(char) { return false; }

std::string_view DefaultPort(std::string_view scheme) { return scheme == "http" ? "80" : "443"; }

}  // namespace

// One run of the basic URL parser over one input. Holds the URL record being built
// (https://url.spec.whatwg.org/#concept-url) with the path kept serialised ("/a/b" for the list
// ["a", "b"]; "" for the empty list), which makes "shorten a URL's path" a truncation.
class UrlParser {
 public:
  UrlParser(std::string_view input, const Url* base) : input_(input), base_(base) {}

  absl::StatusOr<Url> Run();

 private:
  // The steps of Run for each group of states (kEof at the end of the input). An error ends the
  // parse.
  absl::Status StepScheme(int c);
  absl::Status StepRelative(int c);
  absl::Status StepAuthority(int c);
  absl::Status StepPath(int c);

  enum class State {
    kSchemeStart,
    kScheme,
    kNoScheme,
    kSpecialRelativeOrAuthority,
    kRelative,
    kRelativeSlash,
    kSpecialAuthoritySlashes,
    kSpecialAuthorityIgnoreSlashes,
    kAuthority,
    kHost,
    kPort,
    kPathStart,
    kPath,
    kQuery,
    kFragment,
  };

  // The code point at `pointer`, or kEof.
  int C() const {
    return pointer_ < static_cast<ptrdiff_t>(input_.size())
               ? static_cast<unsigned char>(input_[static_cast<size_t>(pointer_)])
               : kEof;
  }
  // The spec's "remaining" starts with `c`.
  bool RemainingStartsWith(char c) const {
    const size_t next = static_cast<size_t>(pointer_) + 1;
    return next < input_.size() && input_[next] == c;
  }
  // EOF, '/', '?', '#', and '\' because a Url is always special.
  static bool IsSpecialDelimiter(int c) {
    return c == kEof || c == '/' || c == '?' || c == '#' || c == '\\';
  }

  void CopyAuthorityFromBase() {
    username_ = base_->username();
    password_ = base_->password();
    host_ = base_->host();
    port_ = base_->port();
  }
  void ShortenPath() {
    const size_t slash = path_.rfind('/');
    if (slash != std::string::npos) path_.resize(slash);
  }
  // Percent-encodes the code point at pointer_ and those after it up to (not including) the
  // next one in `stop`, appending to `out`; returns the position of the last one consumed. The
  // same as running the path / query / fragment state once per code point, minus the dispatch.
  ptrdiff_t AppendEncodedRun(EncodeSet set, bool (*stop)(char), std::string& out) const;
  void AppendUserinfo(std::string_view buffer);
  absl::Status SetPort(std::string_view digits);
  Url Serialize() const;

  std::string_view input_;
  const Url* base_;
  ptrdiff_t pointer_ = 0;
  State state_ = State::kSchemeStart;

  // The URL record.
  std::string scheme_;
  std::string username_, password_;
  std::string host_;
  std::string port_;  // empty = null (including "was the default port")
  std::string path_;
  std::string query_, fragment_;
  bool has_query_ = false, has_fragment_ = false;

  // Parser state flags of the standard.
  bool at_sign_seen_ = false, inside_brackets_ = false, password_token_seen_ = false;
  // Where the authority / host / port text being scanned starts (the spec's "buffer" for those
  // states is always a plain slice of the input).
  size_t buffer_begin_ = 0;
  std::string path_segment_;  // the spec's "buffer" in the path state, percent-encoded
};

ptrdiff_t UrlParser::AppendEncodedRun(EncodeSet set, bool (*stop)(char), std::string& out) const {
  const size_t begin = static_cast<size_t>(pointer_);
  size_t end = begin + 1;
  while (end < input_.size() && !stop(input_[end])) ++end;
  const std::string_view run = input_.substr(begin, end - begin);
  size_t plain = 0;
  while (plain < run.size() &&
         !internal::InEncodeSet(static_cast<unsigned char>(run[plain]), set)) {
    ++plain;
  }
  out.append(run.substr(0, plain));
  AppendPercentEncoded(run.substr(plain), set, out);
  return static_cast<ptrdiff_t>(end) - 1;
}

void UrlParser::AppendUserinfo(std::string_view buffer) {
  if (at_sign_seen_) {
    // A second '@': the first one was part of the userinfo after all.
    (password_token_seen_ ? password_ : username_).append("%40");
  }
  at_sign_seen_ = true;
  for (char c : buffer) {
    if (c == ':' && !password_token_seen_) {
      password_token_seen_ = true;
      continue;
    }
    AppendPercentEncoded(static_cast<unsigned char>(c), EncodeSet::kUserinfo,
                         password_token_seen_ ? password_ : username_);
  }
}

absl::Status UrlParser::SetPort(std::string_view digits) {
  uint32_t port = 0;
  for (char d : digits) {
    port = port * 10 + static_cast<uint32_t>(d - '0');
    if (port > 65535) return Failure("port-out-of-range", "port is greater than 65535");
  }
  port_ = absl::StrCat(port);
  if (port_ == DefaultPort(scheme_)) port_.clear();
  return absl::OkStatus();
}

// The scheme states: scheme start, scheme, no scheme.
absl::Status UrlParser::StepScheme(int c) {
  switch (state_) {
    case State::kSchemeStart:
      if (encoding::IsAsciiAlpha(c)) {
        state_ = State::kScheme;
      } else {
        state_ = State::kNoScheme;
      }
      --pointer_;  // the scheme state re-reads this code point into its buffer
      break;

    case State::kScheme:
      if (encoding::IsAsciiAlnum(c) || c == '+' || c == '-' || c == '.') {
        break;  // the buffer is input_[0, pointer_), lowercased below
      }
      if (c == ':') {
        scheme_.assign(input_.substr(0, static_cast<size_t>(pointer_)));
        for (char& ch : scheme_) ch = encoding::ToAsciiLower(ch);
        if (scheme_ != "http" && scheme_ != "https") {
          constexpr size_t kMaxSchemeInMessage = 32;
          return absl::UnimplementedError(
              absl::StrCat("unsupported scheme \"",
                           AsAbsl(std::string_view(scheme_).substr(0, kMaxSchemeInMessage)),
                           "\": only http and https URLs are crawled"));
        }
        if (base_ != nullptr && base_->scheme() == scheme_) {
          state_ = State::kSpecialRelativeOrAuthority;
        } else {
          state_ = State::kSpecialAuthoritySlashes;
        }
      } else {
        state_ = State::kNoScheme;  // "start over" from the first code point
        pointer_ = -1;
      }
      break;

    case State::kNoScheme:
      if (base_ == nullptr) {
        return Failure("missing-scheme-non-relative-URL", "relative URL without a base URL");
      }
      state_ = State::kRelative;
      --pointer_;
      break;

    default:
      break;
  }
  return absl::OkStatus();
}

// The states that take what the input leaves out from the base URL.
absl::Status UrlParser::StepRelative(int c) {
  switch (state_) {
    case State::kSpecialRelativeOrAuthority:
      if (c == '/' && RemainingStartsWith('/')) {
        state_ = State::kSpecialAuthorityIgnoreSlashes;
        ++pointer_;
      } else {
        state_ = State::kRelative;
        --pointer_;
      }
      break;

    case State::kRelative:
      scheme_ = base_->scheme();
      if (c == '/' || c == '\\') {
        state_ = State::kRelativeSlash;
      } else {
        CopyAuthorityFromBase();
        path_ = base_->path();
        if (base_->has_query()) {
          query_ = base_->query();
          has_query_ = true;
        }
        if (c == '?') {
          query_.clear();
          has_query_ = true;
          state_ = State::kQuery;
        } else if (c == '#') {
          has_fragment_ = true;
          state_ = State::kFragment;
        } else if (c != kEof) {
          query_.clear();
          has_query_ = false;
          ShortenPath();
          state_ = State::kPath;
          --pointer_;
        }
      }
      break;

    case State::kRelativeSlash:
      if (c == '/' || c == '\\') {
        state_ = State::kSpecialAuthorityIgnoreSlashes;
      } else {
        CopyAuthorityFromBase();
        state_ = State::kPath;
        --pointer_;
      }
      break;

    default:
      break;
  }
  return absl::OkStatus();
}

// The authority states: the slashes, userinfo, host and port.
absl::Status UrlParser::StepAuthority(int c) {
  switch (state_) {
    case State::kSpecialAuthoritySlashes:
      state_ = State::kSpecialAuthorityIgnoreSlashes;
      if (c == '/' && RemainingStartsWith('/')) {
        ++pointer_;
      } else {
        --pointer_;  // special-scheme-missing-following-solidus, not fatal
      }
      break;

    case State::kSpecialAuthorityIgnoreSlashes:
      if (c != '/' && c != '\\') {
        state_ = State::kAuthority;
        buffer_begin_ = static_cast<size_t>(pointer_);
        --pointer_;
      }
      break;

    case State::kAuthority:
      if (c == '@') {
        AppendUserinfo(
            input_.substr(buffer_begin_, static_cast<size_t>(pointer_) - buffer_begin_));
        buffer_begin_ = static_cast<size_t>(pointer_) + 1;
      } else if (IsSpecialDelimiter(c)) {
        if (at_sign_seen_ && static_cast<size_t>(pointer_) == buffer_begin_) {
          return Failure("host-missing", "credentials without a host");
        }
        // Back to the start of the buffer: the host state scans it again.
        pointer_ = static_cast<ptrdiff_t>(buffer_begin_) - 1;
        state_ = State::kHost;
      }
      break;

    case State::kHost:
      if (c == ':' && !inside_brackets_) {
        const std::string_view buffer =
            input_.substr(buffer_begin_, static_cast<size_t>(pointer_) - buffer_begin_);
        if (buffer.empty()) return Failure("host-missing", "empty host before the port");
        if (absl::Status s = internal::ParseSpecialHost(buffer, host_); !s.ok()) return s;
        buffer_begin_ = static_cast<size_t>(pointer_) + 1;
        state_ = State::kPort;
      } else if (IsSpecialDelimiter(c)) {
        const std::string_view buffer =
            input_.substr(buffer_begin_, static_cast<size_t>(pointer_) - buffer_begin_);
        if (buffer.empty()) return Failure("host-missing", "empty host");
        if (absl::Status s = internal::ParseSpecialHost(buffer, host_); !s.ok()) return s;
        state_ = State::kPathStart;
        --pointer_;
      } else if (c == '[') {
        inside_brackets_ = true;
      } else if (c == ']') {
        inside_brackets_ = false;
      }
      break;

    case State::kPort:
      if (c >= '0' && c <= '9') break;  // the buffer is input_[buffer_begin_, pointer_)
      if (IsSpecialDelimiter(c)) {
        const std::string_view digits =
            input_.substr(buffer_begin_, static_cast<size_t>(pointer_) - buffer_begin_);
        if (!digits.empty()) {
          if (absl::Status s = SetPort(digits); !s.ok()) return s;
        }
        state_ = State::kPathStart;
        --pointer_;
      } else {
        return Failure("port-invalid", "port is not a number");
      }
      break;

    default:
      break;
  }
  return absl::OkStatus();
}

// The path, query and fragment states.
absl::Status UrlParser::StepPath(int c) {
  switch (state_) {
    case State::kPathStart:
      state_ = State::kPath;
      if (c != '/' && c != '\\') --pointer_;
      break;

    case State::kPath:
      if (c == kEof || c == '/' || c == '\\' || c == '?' || c == '#') {
        const bool slash = c == '/' || c == '\\';
        if (IsDoubleDotSegment(path_segment_)) {
          ShortenPath();
          if (!slash) path_.push_back('/');
        } else if (IsSingleDotSegment(path_segment_)) {
          if (!slash) path_.push_back('/');
        } else {
          path_.push_back('/');
          path_.append(path_segment_);
        }
        path_segment_.clear();
        if (c == '?') {
          has_query_ = true;
          state_ = State::kQuery;
        } else if (c == '#') {
          has_fragment_ = true;
          state_ = State::kFragment;
        }
      } else {
        pointer_ = AppendEncodedRun(EncodeSet::kPath, EndsPathSegment, path_segment_);
      }
      break;

    case State::kQuery:
      // The standard buffers the query to encode it in the document's encoding; with UTF-8
      // every code point is encoded on its own, so appending as we go is the same.
      if (c == '#') {
        has_fragment_ = true;
        state_ = State::kFragment;
      } else if (c != kEof) {
        pointer_ = AppendEncodedRun(EncodeSet::kSpecialQuery, EndsQuery, query_);
      }
      break;

    case State::kFragment:
      if (c != kEof) pointer_ = AppendEncodedRun(EncodeSet::kFragment, EndsFragment, fragment_);
      break;

    default:
      break;
  }
  return absl::OkStatus();
}

// One code point per step, as the standard's state machine reads them; each state's group of
// steps is a function of its own.
absl::StatusOr<Url> UrlParser::Run() {
  for (;; ++pointer_) {
    const int c = C();
    absl::Status step;
    switch (state_) {
      case State::kSchemeStart: case State::kScheme: case State::kNoScheme:
        step = StepScheme(c);
        break;
      case State::kSpecialRelativeOrAuthority: case State::kRelative: case State::kRelativeSlash:
        step = StepRelative(c);
        break;
      case State::kSpecialAuthoritySlashes: case State::kSpecialAuthorityIgnoreSlashes:
      case State::kAuthority: case State::kHost: case State::kPort:
        step = StepAuthority(c);
        break;
      case State::kPathStart: case State::kPath: case State::kQuery: case State::kFragment:
        step = StepPath(c);
        break;
    }
    if (!step.ok()) return step;
    if (pointer_ >= static_cast<ptrdiff_t>(input_.size())) break;
  }
  return Serialize();
}

Url UrlParser::Serialize() const {
  Url url;
  std::string& href = url.href_;
  href.reserve(scheme_.size() + 3 + username_.size() + password_.size() + 2 + host_.size() +
               port_.size() + 1 + path_.size() + query_.size() + fragment_.size() + 2);
  auto pos = [&href] { return static_cast<uint32_t>(href.size()); };
  href.append(scheme_);
  url.scheme_end_ = pos();
  href.append("://");
  url.username_begin_ = pos();
  href.append(username_);
  url.username_end_ = url.password_begin_ = url.password_end_ = pos();
  if (!password_.empty()) {
    href.push_back(':');
    url.password_begin_ = pos();
    href.append(password_);
    url.password_end_ = pos();
  }
  if (!username_.empty() || !password_.empty()) href.push_back('@');
  url.host_begin_ = pos();
  href.append(host_);
  url.host_end_ = url.port_begin_ = url.port_end_ = pos();
  if (!port_.empty()) {
    href.push_back(':');
    url.port_begin_ = pos();
    href.append(port_);
    url.port_end_ = pos();
  }
  url.path_begin_ = pos();
  href.append(path_);
  url.path_end_ = pos();
  if (has_query_) {
    href.push_back('?');
    url.query_begin_ = pos();
    href.append(query_);
  }
  if (has_fragment_) {
    href.push_back('#');
    url.fragment_begin_ = pos();
    href.append(fragment_);
  }
  return url;
}

namespace {

// The standard's preprocessing: strip leading and trailing C0 controls and spaces, then remove
// every tab and newline. Returns a view of `input` when nothing needs removing (the common case),
// else a view of `scratch`.
std::string_view Preprocess(std::string_view input, std::string& scratch) {
  while (!input.empty() && IsC0ControlOrSpace(input.front())) input.remove_prefix(1);
  while (!input.empty() && IsC0ControlOrSpace(input.back())) input.remove_suffix(1);
  bool has_tab_or_newline = false;
  for (char c : input) has_tab_or_newline |= IsAsciiTabOrNewline(c);
  if (!has_tab_or_newline) return input;
  scratch.reserve(input.size());
  for (char c : input) {
    if (!IsAsciiTabOrNewline(c)) scratch.push_back(c);
  }
  return scratch;
}

absl::StatusOr<Url> ParseWithBase(std::string_view input, const Url* base) {
  if (input.size() > kMaxInputBytes) {
    return absl::InvalidArgumentError("URL is longer than 2 MiB");
  }
  std::string scratch;
  return UrlParser(Preprocess(input, scratch), base).Run();
}

}  // namespace

absl::StatusOr<Url> Url::Parse(std::string_view input) { return ParseWithBase(input, nullptr); }

absl::StatusOr<Url> Url::Parse(std::string_view input, const Url& base) {
  return ParseWithBase(input, &base);
}

std::string_view Url::scheme() const { return std::string_view(href_).substr(0, scheme_end_); }

std::string_view Url::username() const {
  return std::string_view(href_).substr(username_begin_, username_end_ - username_begin_);
}

std::string_view Url::password() const {
  return std::string_view(href_).substr(password_begin_, password_end_ - password_begin_);
}

std::string_view Url::host() const {
  return std::string_view(href_).substr(host_begin_, host_end_ - host_begin_);
}

std::string_view Url::port() const {
  return std::string_view(href_).substr(port_begin_, port_end_ - port_begin_);
}

std::string_view Url::path() const {
  return std::string_view(href_).substr(path_begin_, path_end_ - path_begin_);
}

std::string_view Url::query() const {
  if (!has_query()) return {};
  const uint32_t end = has_fragment() ? fragment_begin_ - 1 : static_cast<uint32_t>(href_.size());
  return std::string_view(href_).substr(query_begin_, end - query_begin_);
}

std::string_view Url::fragment() const {
  if (!has_fragment()) return {};
  return std::string_view(href_).substr(fragment_begin_);
}

uint16_t Url::effective_port() const {
  const std::string_view p = port();
  if (p.empty()) return scheme() == "http" ? 80 : 443;
  uint32_t value = 0;
  for (char d : p) value = value * 10 + static_cast<uint32_t>(d - '0');
  return static_cast<uint16_t>(value);
}

std::string_view Url::href_without_fragment() const {
  if (!has_fragment()) return href_;
  return std::string_view(href_).substr(0, fragment_begin_ - 1);
}

void Url::ClearFragment() {
  if (!has_fragment()) return;
  href_.resize(fragment_begin_ - 1);  // the fragment is the last component, after its '#'
  fragment_begin_ = kNone;
}

}  // namespace crawler::url
