#include "lib/warc/warc_verifier.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/sha1.h"
#include "lib/warc/http_block.h"
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
  const std::optional<std::string_view> payload = RecordPayload(record, storage);
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
