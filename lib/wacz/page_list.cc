#include "lib/wacz/page_list.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/sha256.h"
#include "lib/html/extract_page.h"
#include "lib/http/content_decoder.h"
#include "lib/json/json_string.h"
#include "lib/url/url.h"
#include "lib/warc/http_block.h"

namespace crawler::wacz {
namespace {

// Sort lines: url TAB date TAB kind TAB title, so that a URL's lines come together, earliest
// capture first. A URL or a WARC-Date has no tab; titles have theirs replaced.
constexpr char kCapture = 'c';  // a response: a capture with a body (and maybe a title)
constexpr char kRevisit = 'r';  // a revisit: a capture without a body
constexpr char kSeed = 's';     // a metadata record saying "depth: 0"

// HTML bodies read for a title, at most (a title is in the head, near the start).
constexpr size_t kMaxTitleInputBytes = size_t{1} << 20;
constexpr size_t kMaxDecodedBytes = size_t{8} << 20;

bool IsHtml(const http::ResponseHead& head) {
  const std::string essence = head.content_type().essence;
  return essence == "text/html" || essence == "application/xhtml+xml";
}

// The <title> of an HTML response record, "" when it has none or cannot be read.
std::string TitleOf(const warc::ParsedRecord& record, const http::ResponseHead& head,
                    const std::string& uri) {
  std::string storage;
  std::optional<std::string_view> payload = warc::RecordPayload(record, storage);
  if (!payload.has_value()) return "";
  std::string decoded;
  if (!head.content_encodings().empty()) {
    absl::StatusOr<std::string> plain =
        http::DecodeContent(*payload, head.content_encodings(), kMaxDecodedBytes);
    if (!plain.ok()) return "";
    decoded = *std::move(plain);
    payload = decoded;
  }
  absl::StatusOr<url::Url> page_url = url::Url::Parse(uri);
  if (!page_url.ok()) return "";
  html::ExtractOptions options;
  options.max_input_bytes = kMaxTitleInputBytes;
  options.collect_text = false;
  options.max_links = 0;
  const std::optional<std::string_view> content_type = head.Get("Content-Type");
  absl::StatusOr<html::ExtractedPage> page =
      html::ExtractPage(*payload, *page_url, content_type.value_or(""), options);
  if (!page.ok()) return "";
  std::string title = page->meta.title;
  for (char& c : title) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return title;
}

struct Line {
  std::string_view url, date, title;
  char kind = 0;
};

std::optional<Line> ParseLine(std::string_view text) {
  Line line;
  const size_t a = text.find('\t');
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = text.find('\t', a + 1);
  if (b == std::string_view::npos || b + 1 >= text.size()) return std::nullopt;
  line.url = text.substr(0, a);
  line.date = text.substr(a + 1, b - a - 1);
  line.kind = text[b + 1];
  line.title = text.substr(std::min(b + 3, text.size()));
  return line;
}

}  // namespace

PageList::PageList(warc::ExternalSorterOptions sort) : sorter_(std::move(sort)) {}

absl::Status PageList::Add(const warc::ParsedRecord& record) {
  const std::string type = absl::AsciiStrToLower(record.Field("WARC-Type"));
  const std::string uri = record.Field("WARC-Target-URI");
  if (uri.empty() || uri.find('\t') != std::string::npos) return absl::OkStatus();
  const std::string date = record.Field("WARC-Date");
  if (type == "metadata") {
    if (absl::StartsWith(record.block, "depth: 0\r\n") || record.block == "depth: 0") {
      return sorter_.Add(absl::StrCat(uri, "\t", date, "\t", std::string(1, kSeed), "\t"));
    }
    return absl::OkStatus();
  }
  if ((type != "response" && type != "revisit") || !warc::IsHttpBlock(record)) {
    return absl::OkStatus();
  }
  std::optional<http::ResponseHead> head = warc::ParseResponseBlock(record.block);
  if (!head.has_value() || head->status() < 200 || head->status() > 299 || !IsHtml(*head)) {
    return absl::OkStatus();
  }
  if (type == "revisit") {
    return sorter_.Add(absl::StrCat(uri, "\t", date, "\t", std::string(1, kRevisit), "\t"));
  }
  return sorter_.Add(absl::StrCat(uri, "\t", date, "\t", std::string(1, kCapture), "\t",
                                  TitleOf(record, *head, uri)));
}

absl::Status PageList::Finish(const std::function<absl::Status(std::string_view)>& emit) {
  if (absl::Status s = emit(R"({"format":"json-pages-1.0","id":"pages","title":"All Pages"})");
      !s.ok()) {
    return s;
  }
  // The URL whose lines are being read, and what they said so far.
  std::string url, first_date, title;
  bool have_capture = false, have_title = false, seed = false;
  auto flush = [&]() -> absl::Status {
    if (!have_capture) return absl::OkStatus();
    std::string out = "{\"id\":";
    // A stable id: the first 16 hex digits of the URL's SHA-256 ("sha256:" is 7 characters).
    json::AppendJsonString(fingerprint::Sha256Labelled(url).substr(7, 16), out);
    out += ",\"url\":";
    json::AppendJsonString(url, out);
    out += ",\"ts\":";
    json::AppendJsonString(first_date, out);
    if (!title.empty()) {
      out += ",\"title\":";
      json::AppendJsonString(title, out);
    }
    if (seed) {
      out += ",\"seed\":true";
      ++seeds_;
    }
    out += "}";
    ++pages_;
    return emit(out);
  };
  absl::Status status = sorter_.Finish([&](std::string_view text) -> absl::Status {
    std::optional<Line> line = ParseLine(text);
    if (!line.has_value()) return absl::OkStatus();
    if (line->url != url) {
      if (absl::Status s = flush(); !s.ok()) return s;
      url.assign(line->url);
      first_date.clear();
      title.clear();
      have_capture = have_title = seed = false;
    }
    if (line->kind == kSeed) {
      seed = true;
      return absl::OkStatus();
    }
    if (!have_capture) {
      have_capture = true;
      first_date.assign(line->date);
    }
    if (line->kind == kCapture && !have_title) {
      have_title = true;
      title.assign(line->title);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return flush();
}

}  // namespace crawler::wacz
