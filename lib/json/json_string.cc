#include "lib/json/json_string.h"

#include <cstdio>

#include "lib/encoding/hex.h"
#include "lib/encoding/utf8.h"

namespace crawler::json {
namespace {

// Four hex digits of a \u escape at text[pos].
bool Hex4(std::string_view text, size_t& pos, char32_t& out) {
  if (text.size() - pos < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = encoding::HexValue(text[pos++]);
    if (digit < 0) return false;
    out = out * 16 + static_cast<char32_t>(digit);
  }
  return true;
}

}  // namespace

void AppendJsonString(std::string_view s, std::string& out) {
  out.push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == '\x7F') {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(s, out);
  return out;
}

bool ReadJsonString(std::string_view text, size_t& pos, std::string& out) {
  if (pos >= text.size() || text[pos] != '"') return false;
  ++pos;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (c == '"') return true;
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (pos >= text.size()) return false;
    const char e = text[pos++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        char32_t unit;
        if (!Hex4(text, pos, unit)) return false;
        if (unit >= 0xD800 && unit <= 0xDBFF && text.substr(pos, 2) == "\\u") {
          const size_t save = pos;
          pos += 2;
          char32_t low;
          if (Hex4(text, pos, low) && low >= 0xDC00 && low <= 0xDFFF) {
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
          } else {
            pos = save;
          }
        }
        encoding::AppendUtf8(unit, out);  // a lone surrogate becomes U+FFFD
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

}  // namespace crawler::json
