#include "lib/warc/warc_verifier.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/sha1.h"
#include "lib/http/chunked_decoder.h"
#include "lib/http/response_head.h"
#include "lib/warc/warc_reader.h"

namespace crawler::warc {
namespace {

enum class DigestCheck { kMatched, kUnchecked };

// Compares a labelled digest field with the SHA-1 of `content`.
absl::StatusOr<DigestCheck> CheckDigest(const char* field, const std::string& value,
                                        std::string_view content) {
  absl::StatusOr<fingerprint::Sha1Digest> expected = fingerprint::Sha1Digest::FromWarcString(value);
  if (absl::IsUnimplemented(expected.status())) return DigestCheck::kUnchecked;
  if (!expected.ok()) {
    return absl::DataLossError(absl::StrCat(field, " does not parse: ", expected.status().message()));
  }
  const fingerprint::Sha1Digest actual = fingerprint::Sha1(content);
  if (actual != *expected) {
    return absl::DataLossError(absl::StrCat(field, " mismatch: the record says ", value,
                                            ", its content has ", actual.ToWarcString()));
  }
  return DigestCheck::kMatched;
}

// The end of the HTTP header block at the start of `message` (after its blank line), skipping
// 1xx interim responses; nullopt if there is no complete header block.
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

// The payload of a record (WARC 1.1 §5.9), into `storage` when it must be decoded; nullopt for
// an application/http block without a complete header block.
std::optional<std::string_view> Payload(const ParsedRecord& record, std::string& storage) {
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

// Checks the digests of one record, counting them in `report`.
absl::Status CheckRecord(const ParsedRecord& record, WarcVerifyReport& report) {
  auto count = [&report](DigestCheck check, uint64_t& matched) {
    ++(check == DigestCheck::kMatched ? matched : report.unchecked_digests);
  };
  if (const std::string value = record.Field("WARC-Block-Digest"); !value.empty()) {
    absl::StatusOr<DigestCheck> check = CheckDigest("WARC-Block-Digest", value, record.block);
    if (!check.ok()) return check.status();
    count(*check, report.block_digests);
  }
  const std::string value = record.Field("WARC-Payload-Digest");
  if (value.empty() || absl::EqualsIgnoreCase(record.Field("WARC-Type"), "revisit")) {
    return absl::OkStatus();
  }
  std::string storage;
  const std::optional<std::string_view> payload = Payload(record, storage);
  if (!payload.has_value()) {
    return absl::DataLossError("WARC-Payload-Digest on an HTTP block without a header block");
  }
  absl::StatusOr<DigestCheck> check = CheckDigest("WARC-Payload-Digest", value, *payload);
  if (!check.ok()) return check.status();
  count(*check, report.payload_digests);
  return absl::OkStatus();
}

}  // namespace

WarcVerifyReport VerifyWarcFile(const std::string& path, uint64_t max_record_bytes) {
  WarcVerifyReport report;
  absl::StatusOr<std::unique_ptr<WarcReader>> reader = WarcReader::Open(path, max_record_bytes);
  if (!reader.ok()) {
    report.status = reader.status();
    return report;
  }
  std::optional<uint64_t> last_record;  // offset of the last intact record
  while (true) {
    absl::StatusOr<std::optional<ParsedRecord>> next = (*reader)->Next();
    if (next.ok() && !next->has_value()) return report;  // a clean end
    if (next.ok()) report.status = CheckRecord(**next, report);
    if (!next.ok()) report.status = next.status();
    if (!report.status.ok()) {
      report.bad_offset = (*reader)->offset();
      // A gzip member found incomplete or corrupt after its record was read (its trailer): that
      // record was not intact after all.
      if (next.ok() || report.bad_offset != last_record) return report;
      --report.records;
      return report;
    }
    last_record = (*reader)->offset();
    ++report.records;
  }
}

}  // namespace crawler::warc
