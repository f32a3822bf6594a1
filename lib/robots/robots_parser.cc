#include "lib/robots/robots_parser.h"

#include <array>
#include <cstddef>
#include <string_view>

#include "lib/encoding/ascii.h"

namespace crawler::robots {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsWhitespace(char c) { return c == ' ' || c == '\t'; }
bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

enum class Key { kUserAgent, kAllow, kDisallow, kCrawlDelay, kSitemap, kUnknown };

struct KeySpelling {
  std::string_view spelling;
  Key key;
};

// See the header for why these spellings and no others.
constexpr std::array<KeySpelling, 12> kKeySpellings = {{
    {"user-agent", Key::kUserAgent},
    {"useragent", Key::kUserAgent},
    {"user agent", Key::kUserAgent},
    {"allow", Key::kAllow},
    {"disallow", Key::kDisallow},
    {"dissallow", Key::kDisallow},
    {"dissalow", Key::kDisallow},
    {"disalow", Key::kDisallow},
    {"crawl-delay", Key::kCrawlDelay},
    {"crawldelay", Key::kCrawlDelay},
    {"sitemap", Key::kSitemap},
    {"site-map", Key::kSitemap},
}};

Key ClassifyKey(std::string_view key) {
  if (key.empty()) return Key::kUnknown;
  for (const KeySpelling& k : kKeySpellings) {
    if (encoding::EqualsIgnoreCase(key, k.spelling)) return k.key;
  }
  return Key::kUnknown;
}

// Splits a trimmed, comment-free, non-empty line into key and value. Returns false if the line
// has neither ':' nor the "two words" shape tolerated in place of it.
bool SplitKeyValue(std::string_view line, std::string_view& key, std::string_view& value) {
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    key = Trim(line.substr(0, colon));
    value = Trim(line.substr(colon + 1));
    return true;
  }
  const size_t ws = line.find_first_of(" \t");
  if (ws == std::string_view::npos) return false;
  std::string_view rest = Trim(line.substr(ws));
  if (rest.find_first_of(" \t") != std::string_view::npos) return false;
  key = line.substr(0, ws);
  value = rest;
  return true;
}

void ParseLine(int line_number, std::string_view line, RobotsParseHandler& handler) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  line = Trim(line);
  if (line.empty()) return;

  std::string_view key;
  std::string_view value;
  if (!SplitKeyValue(line, key, value)) {
    handler.HandleUnknown(line_number, line, std::string_view());
    return;
  }
  switch (ClassifyKey(key)) {
    case Key::kUserAgent:
      handler.HandleUserAgent(line_number, value);
      return;
    case Key::kAllow:
      handler.HandleAllow(line_number, value);
      return;
    case Key::kDisallow:
      handler.HandleDisallow(line_number, value);
      return;
    case Key::kCrawlDelay:
      handler.HandleCrawlDelay(line_number, value);
      return;
    case Key::kSitemap:
      handler.HandleSitemap(line_number, value);
      return;
    case Key::kUnknown:
      handler.HandleUnknown(line_number, key, value);
      return;
  }
}

}  // namespace

void ParseRobotsTxt(std::string_view body, RobotsParseHandler& handler) {
  size_t ignored_bytes = 0;
  if (body.size() > kRobotsParseLimitBytes) {
    // Keep only whole lines: a line is whole if its terminator is within the limit, or if the
    // limit falls exactly on its terminator.
    std::string_view kept = body.substr(0, kRobotsParseLimitBytes);
    if (!IsLineEnd(body[kRobotsParseLimitBytes])) {
      const size_t last_end = kept.find_last_of("\r\n");
      kept = last_end == std::string_view::npos ? std::string_view() : kept.substr(0, last_end + 1);
    }
    ignored_bytes = body.size() - kept.size();
    body = kept;
  }
  if (body.starts_with(kUtf8Bom)) body.remove_prefix(kUtf8Bom.size());

  int line_number = 0;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = pos;
    while (end < body.size() && !IsLineEnd(body[end])) ++end;
    ++line_number;
    ParseLine(line_number, body.substr(pos, end - pos), handler);
    if (end < body.size() && body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n') {
      ++end;
    }
    pos = end + 1;
  }
  if (ignored_bytes > 0) handler.HandleParseLimit(line_number + 1, ignored_bytes);
}

}  // namespace crawler::robots
