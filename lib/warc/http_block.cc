#include "lib/warc/http_block.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/http/chunked_decoder.h"

namespace crawler::warc {

bool IsHttpBlock(const ParsedRecord& record) {
  return absl::StartsWith(absl::AsciiStrToLower(record.Field("Content-Type")), "application/http");
}

std::optional<size_t> HttpHeadEnd(std::string_view message) {
  size_t begin = 0;
  while (true) {
    const size_t crlf = message.find("\r\n\r\n", begin);
    const size_t lf = message.find("\n\n", begin);
    size_t end;
    if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
      end = crlf + 4;
    } else if (lf != std::string_view::npos) {
      end = lf + 2;
    } else {
      return std::nullopt;
    }
    const std::string_view status_line = message.substr(begin, message.find('\n', begin) - begin);
    // "HTTP/1.1 100 Continue": an interim response; the final one follows.
    const size_t space = status_line.find(' ');
    if (space == std::string_view::npos || status_line.size() < space + 2 ||
        status_line[space + 1] != '1' || status_line.substr(0, 5) != "HTTP/") {
      return end;
    }
    begin = end;
  }
}

std::optional<http::ResponseHead> ParseResponseBlock(std::string_view block) {
  const std::optional<size_t> head_end = HttpHeadEnd(block);
  if (!head_end.has_value()) return std::nullopt;
  absl::StatusOr<http::ResponseHead> head = http::ResponseHead::Parse(block.substr(0, *head_end));
  if (!head.ok()) return std::nullopt;
  return *std::move(head);
}

std::optional<std::string_view> RecordPayload(const ParsedRecord& record, std::string& storage) {
  const std::string content_type = absl::AsciiStrToLower(record.Field("Content-Type"));
  if (!absl::StartsWith(content_type, "application/http")) return record.block;
  const std::optional<size_t> head_end = HttpHeadEnd(record.block);
  if (!head_end.has_value()) return std::nullopt;
  const std::string_view body = std::string_view(record.block).substr(*head_end);
  if (absl::StrContains(content_type, "msgtype=request")) return body;
  absl::StatusOr<http::ResponseHead> head =
      http::ResponseHead::Parse(std::string_view(record.block).substr(0, *head_end));
  if (!head.ok()) return std::nullopt;
  return http::EntityBody(*head, body, storage);
}

}  // namespace crawler::warc
