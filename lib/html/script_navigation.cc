#include "lib/html/script_navigation.h"

#include <cstdint>

#include "lib/encoding/ascii.h"

namespace crawler::html {
namespace {

using encoding::IsAsciiAlpha;
using encoding::IsAsciiDigit;
using encoding::StartsWithIgnoreCase;

enum class TokenType : uint8_t {
  kIdentifier,  // names and keywords
  kPunct,       // ( ) [ ] { } ; , . / and runs of operator characters (=, ==, +=, ...)
  kString,      // a string literal, or a piece of a template literal
  kOther,       // numbers, regular expression literals
};

struct Token {
  TokenType type;
  // A line break came before the token (automatic semicolon insertion may end a statement).
  bool newline_before;
  // kString: the literal is whole ('...', "...", or `...` without substitutions).
  bool whole_literal;
  // kIdentifier and kPunct: the token; kString: the source between the quotes, escapes raw.
  std::string_view text;
};

bool IsIdentifierStart(unsigned char c) {
  return IsAsciiAlpha(c) || c == '_' || c == '$' || c >= 0x80;
}

bool IsIdentifierPart(unsigned char c) { return IsIdentifierStart(c) || IsAsciiDigit(c); }

// Runs of these are one token: an assignment is a run that is exactly "=".
bool IsOperatorChar(char c) {
  switch (c) {
    case '=': case '!': case '<': case '>': case '+': case '-': case '*': case '%': case '&':
    case '|': case '^': case '~': case '?': case ':':
      return true;
    default:
      return false;
  }
}

bool IsLineBreak(char c) { return c == '\n' || c == '\r'; }

// After these keywords a '/' starts a regular expression, not a division.
bool KeywordBeforeExpression(std::string_view word) {
  for (const std::string_view keyword :
       {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
        "instanceof", "yield", "await"}) {
    if (word == keyword) return true;
  }
  return false;
}

// The usual heuristic: a '/' is a regular expression where an expression may start.
bool RegexAllowedAfter(const std::vector<Token>& tokens) {
  if (tokens.empty()) return true;
  const Token& last = tokens.back();
  switch (last.type) {
    case TokenType::kPunct:
      return last.text != ")" && last.text != "]" && last.text != "}";
    case TokenType::kIdentifier:
      return KeywordBeforeExpression(last.text);
    default:
      return false;
  }
}

// Splits `code` into tokens, each byte looked at a bounded number of times. Stops at the first
// string, comment or regular expression that does not end: what follows is not code.
class Lexer {
 public:
  explicit Lexer(std::string_view code) : code_(code) {}

  std::vector<Token> Run() && {
    const size_t n = code_.size();
    while (i_ < n) {
      const auto c = static_cast<unsigned char>(code_[i_]);
      if (IsLineBreak(static_cast<char>(c))) {
        newline_ = true;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
        ++i_;
      } else if (c == '/' && i_ + 1 < n && code_[i_ + 1] == '/') {
        while (i_ < n && !IsLineBreak(code_[i_])) ++i_;
      } else if (c == '/' && i_ + 1 < n && code_[i_ + 1] == '*') {
        const size_t end = code_.find("*/", i_ + 2);
        if (end == std::string_view::npos) break;
        for (size_t j = i_ + 2; j < end && !newline_; ++j) newline_ = IsLineBreak(code_[j]);
        i_ = end + 2;
      } else if (IsIdentifierStart(c)) {
        const size_t begin = i_;
        while (i_ < n && IsIdentifierPart(static_cast<unsigned char>(code_[i_]))) ++i_;
        Push(TokenType::kIdentifier, code_.substr(begin, i_ - begin));
      } else if (IsAsciiDigit(c)) {
        while (i_ < n && (IsIdentifierPart(static_cast<unsigned char>(code_[i_])) ||
                          code_[i_] == '.')) {
          ++i_;
        }
        Push(TokenType::kOther, {});
      } else if (c == '\'' || c == '"') {
        if (!QuotedString(static_cast<char>(c))) break;
      } else if (c == '`') {
        ++i_;
        if (!TemplatePart(/*whole_so_far=*/true)) break;
      } else if (c == '{') {
        braces_.push_back(false);
        Push(TokenType::kPunct, code_.substr(i_++, 1));
      } else if (c == '}') {
        const bool closes_substitution = !braces_.empty() && braces_.back();
        if (!braces_.empty()) braces_.pop_back();
        if (closes_substitution) {
          ++i_;
          if (!TemplatePart(/*whole_so_far=*/false)) break;
        } else {
          Push(TokenType::kPunct, code_.substr(i_++, 1));
        }
      } else if (c == '/') {
        if (RegexAllowedAfter(tokens_)) {
          if (!RegularExpression()) break;
        } else {
          const size_t length = i_ + 1 < n && code_[i_ + 1] == '=' ? 2 : 1;
          Push(TokenType::kPunct, code_.substr(i_, length));
          i_ += length;
        }
      } else if (IsOperatorChar(static_cast<char>(c))) {
        const size_t begin = i_;
        while (i_ < n && IsOperatorChar(code_[i_])) ++i_;
        Push(TokenType::kPunct, code_.substr(begin, i_ - begin));
      } else {
        Push(TokenType::kPunct, code_.substr(i_++, 1));  // ( ) [ ] ; , . and the rest
      }
    }
    return std::move(tokens_);
  }

 private:
  void Push(TokenType type, std::string_view text, bool whole_literal = false) {
    tokens_.push_back(Token{type, newline_, whole_literal, text});
    newline_ = false;
  }

  // '...' or "..." from i_; false if it does not end on its line.
  bool QuotedString(char quote) {
    const size_t n = code_.size();
    size_t j = i_ + 1;
    while (j < n && code_[j] != quote && !IsLineBreak(code_[j])) j += code_[j] == '\\' ? 2 : 1;
    if (j >= n || code_[j] != quote) return false;
    Push(TokenType::kString, code_.substr(i_ + 1, j - i_ - 1), /*whole_literal=*/true);
    i_ = j + 1;
    return true;
  }

  // Template characters from i_ (after the opening ` or the } of a substitution) to the closing
  // ` or the next ${; false if neither comes.
  bool TemplatePart(bool whole_so_far) {
    const size_t n = code_.size();
    const size_t begin = i_;
    while (i_ < n) {
      const char c = code_[i_];
      if (c == '\\') {
        i_ += 2;
      } else if (c == '`') {
        Push(TokenType::kString, code_.substr(begin, i_ - begin), whole_so_far);
        ++i_;
        return true;
      } else if (c == '$' && i_ + 1 < n && code_[i_ + 1] == '{') {
        Push(TokenType::kString, code_.substr(begin, i_ - begin), false);
        i_ += 2;
        braces_.push_back(true);
        return true;
      } else {
        ++i_;
      }
    }
    return false;
  }

  // /.../flags from i_; false if it does not end on its line.
  bool RegularExpression() {
    const size_t n = code_.size();
    size_t j = i_ + 1;
    bool in_class = false;
    while (j < n && !IsLineBreak(code_[j])) {
      const char c = code_[j];
      if (c == '\\') {
        j += 2;
        continue;
      }
      if (in_class) {
        in_class = c != ']';
      } else if (c == '[') {
        in_class = true;
      } else if (c == '/') {
        break;
      }
      ++j;
    }
    if (j >= n || code_[j] != '/') return false;
    i_ = j + 1;
    while (i_ < n && IsIdentifierPart(static_cast<unsigned char>(code_[i_]))) ++i_;
    Push(TokenType::kOther, {});
    return true;
  }

  const std::string_view code_;
  size_t i_ = 0;
  bool newline_ = false;
  // The open { and ${ (true) of the code, so that the } closing a substitution resumes the
  // template literal.
  std::vector<bool> braces_;
  std::vector<Token> tokens_;
};

bool IsPunct(const Token& token, std::string_view text) {
  return token.type == TokenType::kPunct && token.text == text;
}

bool IsName(const Token& token, std::string_view name) {
  return token.type == TokenType::kIdentifier && token.text == name;
}

// Names of the global object (and of the document, whose location is the window's).
bool IsGlobalName(const Token& token, bool document_too) {
  if (token.type != TokenType::kIdentifier) return false;
  const std::string_view name = token.text;
  return name == "window" || name == "self" || name == "top" || name == "parent" ||
         (document_too && name == "document");
}

// Whether tokens[name] is a global property: preceded by nothing but a chain of global names
// (window.top.location), itself not a property of another object (frame.location) nor being
// declared (var location). `min_chain`: how many global names must precede it.
bool IsGlobal(const std::vector<Token>& tokens, size_t name, bool document_too,
              size_t min_chain) {
  size_t start = name;
  size_t chain = 0;
  while (start >= 2 && IsPunct(tokens[start - 1], ".") &&
         IsGlobalName(tokens[start - 2], document_too)) {
    start -= 2;
    ++chain;
  }
  if (chain < min_chain) return false;
  if (start == 0) return true;
  const Token& before = tokens[start - 1];
  return !IsPunct(before, ".") && !IsName(before, "var") && !IsName(before, "let") &&
         !IsName(before, "const");
}

// Whether the literal before tokens[next] is the whole right-hand side of an assignment.
bool EndsExpression(const std::vector<Token>& tokens, size_t next) {
  if (next == tokens.size()) return true;
  const Token& token = tokens[next];
  if (token.type == TokenType::kPunct) {
    return token.text == ";" || token.text == "}" || token.text == ")" || token.text == ",";
  }
  // A new statement on the next line (automatic semicolon insertion).
  return token.newline_before && token.type == TokenType::kIdentifier;
}

// The first argument of a call, if it is a literal: tokens[open] is "(".
bool FirstArgumentIsLiteral(const std::vector<Token>& tokens, size_t open) {
  return open + 2 < tokens.size() && IsPunct(tokens[open], "(") &&
         tokens[open + 1].type == TokenType::kString && tokens[open + 1].whole_literal &&
         (IsPunct(tokens[open + 2], ")") || IsPunct(tokens[open + 2], ","));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `digits` hex digits at s[pos], or -1.
int HexAt(std::string_view s, size_t pos, size_t digits) {
  if (pos + digits > s.size()) return -1;
  int value = 0;
  for (size_t k = 0; k < digits; ++k) {
    const int digit = HexValue(s[pos + k]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// The value of a string literal's source, or nullopt if it has an escape not understood here.
std::optional<std::string> DecodeLiteral(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out.push_back(raw[i]);
      continue;
    }
    if (++i == raw.size()) return std::nullopt;
    switch (raw[i]) {
      case '\'': case '"': case '\\': case '/': case '`':
        out.push_back(raw[i]);
        break;
      case 'x':
      case 'u': {
        const size_t digits = raw[i] == 'x' ? 2 : 4;
        const int value = HexAt(raw, i + 1, digits);
        if (value < 0x20 || value > 0x7E) return std::nullopt;  // also -1: not hex, or \u{
        out.push_back(static_cast<char>(value));
        i += digits;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

void AddLiteral(const Token& token, std::vector<std::string>& targets) {
  if (std::optional<std::string> value = DecodeLiteral(token.text)) {
    targets.push_back(*std::move(value));
  }
}

}  // namespace

std::vector<std::string> ScriptNavigationTargets(std::string_view code) {
  const std::vector<Token> tokens = Lexer(code.substr(0, kMaxScriptCodeBytes)).Run();
  std::vector<std::string> targets;
  const size_t n = tokens.size();
  for (size_t i = 0; i < n; ++i) {
    if (IsName(tokens[i], "location") &&
        IsGlobal(tokens, i, /*document_too=*/true, /*min_chain=*/0)) {
      // location.assign(TARGET), location.replace(TARGET)
      if (i + 3 < n && IsPunct(tokens[i + 1], ".") &&
          (IsName(tokens[i + 2], "assign") || IsName(tokens[i + 2], "replace")) &&
          FirstArgumentIsLiteral(tokens, i + 3)) {
        AddLiteral(tokens[i + 4], targets);
        continue;
      }
      // location = TARGET, location.href = TARGET
      size_t op = i + 1;
      if (op + 1 < n && IsPunct(tokens[op], ".") && IsName(tokens[op + 1], "href")) op += 2;
      if (op + 1 < n && IsPunct(tokens[op], "=") && tokens[op + 1].type == TokenType::kString &&
          tokens[op + 1].whole_literal && EndsExpression(tokens, op + 2)) {
        AddLiteral(tokens[op + 1], targets);
      }
    } else if (IsName(tokens[i], "open") &&
               IsGlobal(tokens, i, /*document_too=*/false, /*min_chain=*/1) &&
               FirstArgumentIsLiteral(tokens, i + 1)) {
      AddLiteral(tokens[i + 2], targets);  // window.open(TARGET[, ...])
    }
  }
  return targets;
}

std::optional<std::string> JavascriptUrlCode(std::string_view href) {
  while (!href.empty() && static_cast<unsigned char>(href.front()) <= 0x20) href.remove_prefix(1);
  constexpr std::string_view kScheme = "javascript:";
  if (!StartsWithIgnoreCase(href, kScheme)) return std::nullopt;
  href = href.substr(kScheme.size(), kMaxScriptCodeBytes);
  std::string code;
  code.reserve(href.size());
  for (size_t i = 0; i < href.size(); ++i) {
    const char c = href[i];
    // The URL parser removes tabs and newlines anywhere in a URL.
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '%') {
      if (const int byte = HexAt(href, i + 1, 2); byte >= 0) {
        code.push_back(static_cast<char>(byte));
        i += 2;
        continue;
      }
    }
    code.push_back(c);
  }
  return code;
}

}  // namespace crawler::html
