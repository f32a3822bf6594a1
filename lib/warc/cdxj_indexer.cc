#include "lib/warc/cdxj_indexer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/http_block.h"
#include "lib/warc/surt.h"

namespace crawler::warc {
namespace {

// What the index reads of a record: a few of its fields (as a reader finds them) and its block.
// `field(name)` gives a field's value, empty when absent.
template <typename Field>
struct RecordView {
  const Field& field;
  std::string_view block;
};

// warcio.js's default record filter (see the header).
template <typename Field>
bool Indexed(const RecordView<Field>& record, const std::string& type) {
  if (record.field("WARC-Target-URI").empty()) return false;
  if (type == "request" || type == "warcinfo") return false;
  if ((type == "metadata" || type == "resource") &&
      record.field("Content-Type") == "application/warc-fields") {
    return false;
  }
  return true;
}

// The media type of a Content-Type value: before the first ';', surrounding whitespace removed.
std::string MediaTypeOf(std::string_view content_type) {
  return std::string(
      absl::StripAsciiWhitespace(encoding::AsAbsl(content_type.substr(0, content_type.find(';')))));
}

// "sha1:ABC" -> "ABC"; the text between the first and any second ':'.
std::string DigestValue(std::string_view labelled) {
  const size_t colon = labelled.find(':');
  if (colon == std::string_view::npos) return "";
  const std::string_view rest = labelled.substr(colon + 1);
  return std::string(rest.substr(0, rest.find(':')));
}

template <typename Field>
CdxjEntry EntryOf(const RecordView<Field>& record, const std::string& type,
                  const std::string& filename) {
  CdxjEntry entry;
  entry.url = record.field("WARC-Target-URI");
  entry.key = SurtKey(entry.url);
  entry.timestamp = CdxjTimestamp(record.field("WARC-Date"));
  entry.filename = filename;
  entry.digest = DigestValue(record.field("WARC-Payload-Digest"));
  std::optional<http::ResponseHead> head;
  // warcio.js reads the HTTP head of every response, and of a revisit with a block.
  if (type == "response" || (type == "revisit" && !record.block.empty())) {
    head = ParseResponseBlock(record.block);
  }
  if (head.has_value()) entry.status = absl::StrCat(head->status());
  if (type == "revisit") {
    entry.mime = "warc/revisit";
  } else if (type == "response") {
    if (head.has_value()) {
      if (std::optional<std::string_view> value = head->Get("Content-Type"); value.has_value()) {
        entry.mime = MediaTypeOf(*value);
      }
    }
  } else {
    entry.mime = record.field("Content-Type");
  }
  return entry;
}

template <typename Field>
std::optional<CdxjEntry> EntryFor(const RecordView<Field>& record, const std::string& filename) {
  const std::string type = absl::AsciiStrToLower(record.field("WARC-Type"));
  if (!Indexed(record, type)) return std::nullopt;
  return EntryOf(record, type, filename);
}

}  // namespace

std::optional<CdxjEntry> EntryForRecord(const ParsedRecord& record, const std::string& filename) {
  const auto field = [&record](std::string_view name) { return record.Field(name); };
  return EntryFor(RecordView<decltype(field)>{field, record.block}, filename);
}

std::optional<CdxjEntry> EntryForWrittenRecord(const WarcRecord& record,
                                               const std::string& filename) {
  const auto field = [&record](std::string_view name) { return WrittenFieldValue(record, name); };
  return EntryFor(RecordView<decltype(field)>{field, record.block}, filename);
}

absl::Status IndexWarcFile(const std::string& path, const std::string& filename,
                           const CdxjIndexOptions& options,
                           const std::function<absl::Status(const PlacedRecord&)>& visit,
                           CdxjIndexStats* stats) {
  CdxjIndexStats local;
  CdxjIndexStats& counts = stats != nullptr ? *stats : local;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  absl::StatusOr<std::unique_ptr<WarcReader>> reader =
      WarcReader::Open(path, options.max_record_bytes);
  if (!reader.ok()) return reader.status();
  // The record read last: its length is known once the next one begins (or the file ends).
  std::optional<ParsedRecord> pending;
  uint64_t pending_offset = 0;
  uint64_t pending_block_end = 0;
  auto finish_pending = [&](uint64_t end) -> absl::Status {
    if (!pending.has_value()) return absl::OkStatus();
    // In a plain file a record ends with its block, as warcio.js counts it (the CRLFs after
    // it are read with the next record); in a gzip file, with its member.
    if (!(*reader)->compressed()) end = pending_block_end;
    if (end <= pending_offset) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": record ", counts.records, " (", pending->Field("WARC-Target-URI"),
          ") shares the gzip member at offset ", pending_offset,
          " with the next record: the file is not compressed record by record (WARC 1.1 Annex "
          "D), so its records cannot be addressed by offset"));
    }
    std::optional<CdxjEntry> entry = EntryForRecord(*pending, filename);
    if (entry.has_value()) {
      entry->offset = pending_offset;
      entry->length = end - pending_offset;
      ++counts.entries;
    }
    const PlacedRecord placed{.record = *pending,
                              .offset = pending_offset,
                              .length = end - pending_offset,
                              .entry = entry.has_value() ? &*entry : nullptr};
    absl::Status status = visit(placed);
    pending.reset();
    return status;
  };
  while (true) {
    absl::StatusOr<std::optional<ParsedRecord>> next = (*reader)->Next();
    if (!next.ok()) {
      return absl::Status(
          next.status().code(),
          absl::StrCat(path, ": damaged at offset ", (*reader)->offset(), ": ",
                       next.status().message(), " (after ", counts.records, " intact records)"));
    }
    const uint64_t offset = next->has_value() ? (*reader)->offset() : file_size;
    if (absl::Status s = finish_pending(offset); !s.ok()) return s;
    if (!next->has_value()) return absl::OkStatus();
    ++counts.records;
    pending = std::move(**next);
    pending_offset = offset;
    pending_block_end = (*reader)->block_end();
  }
}

std::string CdxjPathFor(const std::string& warc_path) {
  std::string base = warc_path;
  for (std::string_view suffix : {".warc.gz", ".warc"}) {
    if (base.ends_with(suffix)) {
      base.resize(base.size() - suffix.size());
      break;
    }
  }
  return base + ".cdxj";
}

absl::Status WriteSortedIndex(ExternalSorter& sorter, const std::string& cdxj_path, bool sync) {
  std::string temp = absl::StrCat(cdxj_path, ".tmp-XXXXXX");
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot create ", temp, ": ", std::strerror(errno)));
  }
  std::FILE* out = ::fdopen(fd, "w");
  if (out == nullptr) {
    ::close(fd);
    ::unlink(temp.c_str());
    return absl::UnavailableError(absl::StrCat("fdopen ", temp, ": ", std::strerror(errno)));
  }
  absl::Status status = sorter.Finish([out](std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), out);
    std::fputc('\n', out);
    return absl::OkStatus();
  });
  bool written = status.ok() && std::fflush(out) == 0 && !std::ferror(out) &&
                 ::fchmod(fd, 0644) == 0 && (!sync || ::fsync(fd) == 0);
  const int err = errno;
  written = std::fclose(out) == 0 && written;
  if (written && std::rename(temp.c_str(), cdxj_path.c_str()) == 0) return absl::OkStatus();
  ::unlink(temp.c_str());
  if (!status.ok()) return status;
  return absl::UnavailableError(
      absl::StrCat("cannot write ", cdxj_path, ": ", std::strerror(err != 0 ? err : errno)));
}

absl::Status WriteCdxjIndex(const std::string& warc_path, const std::string& cdxj_path,
                            const CdxjIndexOptions& options, CdxjIndexStats* stats) {
  const std::filesystem::path target(cdxj_path);
  const std::string dir =
      target.has_parent_path() ? target.parent_path().string() : std::string(".");
  ExternalSorter sorter({.temp_dir = options.temp_dir.empty() ? dir : options.temp_dir,
                         .memory_bytes = options.sort_memory_bytes});
  const std::string filename = std::filesystem::path(warc_path).filename().string();
  absl::Status status = IndexWarcFile(
      warc_path, filename, options,
      [&sorter](const PlacedRecord& placed) {
        return placed.entry == nullptr ? absl::OkStatus() : sorter.Add(placed.entry->ToLine());
      },
      stats);
  if (!status.ok()) return status;
  return WriteSortedIndex(sorter, cdxj_path, /*sync=*/true);
}

}  // namespace crawler::warc
