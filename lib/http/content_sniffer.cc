#include "lib/http/content_sniffer.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lib/encoding/absl_view.h"

namespace crawler::http {
namespace {

using encoding::AsAbsl;

bool IsWhitespaceByte(char c) {
  return c == '\t' || c == '\n' || c == '\x0C' || c == '\r' || c == ' ';
}

// §7.1 step 2, the HTML patterns: "<TAG" followed by a space or '>' (case-insensitive).
bool LooksLikeHtml(std::string_view s) {
  static constexpr std::string_view kTags[] = {
      "<!doctype html", "<html", "<head",  "<script", "<iframe", "<h1",   "<div", "<font",
      "<table",         "<a",    "<style", "<title",  "<b",      "<body", "<br",  "<p"};
  for (std::string_view tag : kTags) {
    if (s.size() > tag.size() && absl::StartsWithIgnoreCase(AsAbsl(s), AsAbsl(tag)) &&
        (s[tag.size()] == ' ' || s[tag.size()] == '>')) {
      return true;
    }
  }
  return absl::StartsWith(AsAbsl(s), "<!--");
}

// §7.2: "binary data byte" = 0x00-0x08, 0x0B, 0x0E-0x1A, 0x1C-0x1F.
bool HasBinaryByte(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<uint8_t>(ch);
    if (c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1A) || (c >= 0x1C && c <= 0x1F)) {
      return true;
    }
  }
  return false;
}

// Finds the root element name of an XML document (skips the declaration, comments, PIs, DOCTYPE).
std::string XmlRootName(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    i = s.find('<', i);
    if (i == std::string_view::npos || i + 1 >= s.size()) return "";
    const char next = s[i + 1];
    if (next == '?' || next == '!') {
      const size_t end = s.find('>', i);
      if (end == std::string_view::npos) return "";
      i = end + 1;
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && !IsWhitespaceByte(s[j]) && s[j] != '>' && s[j] != '/') ++j;
    std::string name(s.substr(i + 1, j - i - 1));
    const size_t colon = name.find(':');  // drop a namespace prefix
    if (colon != std::string::npos) name = name.substr(colon + 1);
    return absl::AsciiStrToLower(name);
  }
  return "";
}

std::string RefineXml(std::string_view body, std::string fallback) {
  const std::string root = XmlRootName(body);
  if (root == "urlset" || root == "sitemapindex") return "application/sitemap+xml";
  if (root == "rss") return "application/rss+xml";
  if (root == "feed") return "application/atom+xml";
  if (root == "html") return "application/xhtml+xml";
  return fallback;
}

}  // namespace

bool IsHtml(std::string_view essence) {
  return essence == "text/html" || essence == "application/xhtml+xml";
}

std::string SniffContentType(std::string_view declared, std::string_view body) {
  body = body.substr(0, kSniffBytes);
  const bool unknown = declared.empty() || declared == "unknown/unknown" ||
                       declared == "application/unknown" || declared == "*/*";
  if (!unknown) {
    if (declared == "text/plain")
      return HasBinaryByte(body) ? "application/octet-stream" : "text/plain";
    if (declared == "text/xml" || declared == "application/xml") {
      return RefineXml(body, std::string(declared));
    }
    return std::string(declared);
  }

  // §7.1: skip leading whitespace for the markup patterns.
  std::string_view s = body;
  if (absl::StartsWith(AsAbsl(s), "\xEF\xBB\xBF")) s.remove_prefix(3);
  while (!s.empty() && IsWhitespaceByte(s.front())) s.remove_prefix(1);
  if (LooksLikeHtml(s)) return "text/html";
  if (absl::StartsWith(AsAbsl(s), "<?xml")) return RefineXml(s, "text/xml");
  if (absl::StartsWith(AsAbsl(body), "%PDF-")) return "application/pdf";
  if (absl::StartsWith(AsAbsl(body), "%!PS-Adobe-")) return "application/postscript";
  if (absl::StartsWith(AsAbsl(body), "\x89PNG\r\n\x1A\n")) return "image/png";
  if (absl::StartsWith(AsAbsl(body), "\xFF\xD8\xFF")) return "image/jpeg";
  if (absl::StartsWith(AsAbsl(body), "GIF87a") || absl::StartsWith(AsAbsl(body), "GIF89a")) {
    return "image/gif";
  }
  if (absl::StartsWith(AsAbsl(body), "\x1F\x8B\x08")) return "application/x-gzip";
  if (absl::StartsWith(AsAbsl(body), "PK\x03\x04")) return "application/zip";
  return HasBinaryByte(body) ? "application/octet-stream" : "text/plain";
}

}  // namespace crawler::http
