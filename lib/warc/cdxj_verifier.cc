#include "lib/warc/cdxj_verifier.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/warc/cdxj.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/warc_reader.h"

namespace crawler::warc {
namespace {

// Reads a text file line by line (newlines dropped).
class LineReader {
 public:
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
      return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    return Adopt(file);
  }
  // Reads `file` from where it is, and closes it.
  static std::unique_ptr<LineReader> Adopt(std::FILE* file) {
    return std::unique_ptr<LineReader>(new LineReader(file));
  }
  ~LineReader() {
    std::free(buffer_);
    std::fclose(file_);
  }
  // The next line, or nullopt at the end.
  std::optional<std::string_view> Next() {
    const ssize_t n = ::getline(&buffer_, &capacity_, file_);
    if (n <= 0) return std::nullopt;
    std::string_view line(buffer_, static_cast<size_t>(n));
    if (line.back() == '\n') line.remove_suffix(1);
    return line;
  }

 private:
  explicit LineReader(std::FILE* file) : file_(file) {}
  std::FILE* file_;
  char* buffer_ = nullptr;
  size_t capacity_ = 0;
};

std::string Shorten(std::string_view line) {
  constexpr size_t kMax = 160;
  return line.size() <= kMax ? std::string(line) : std::string(line.substr(0, kMax)) + "...";
}

uint64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// Why `entry` is not a line the indexer makes: what is at its offset.
std::string Diagnose(const CdxjEntry& entry, const std::string& warc_path) {
  const std::string where = absl::StrCat("offset ", entry.offset, " of ", entry.filename);
  absl::StatusOr<std::unique_ptr<WarcReader>> reader =
      WarcReader::Open(warc_path, uint64_t{1} << 30, entry.offset);
  if (!reader.ok()) {
    return absl::StrCat(where, ": not the start of a record (", reader.status().message(), ")");
  }
  absl::StatusOr<std::optional<ParsedRecord>> record = (*reader)->Next();
  if (!record.ok()) {
    return absl::StrCat(where, ": not the start of a record (", record.status().message(), ")");
  }
  if (!record->has_value()) return absl::StrCat(where, ": past the last record of the file");
  if ((*reader)->offset() != entry.offset) {
    return absl::StrCat(where, ": not the start of a record (the next one begins at ",
                        (*reader)->offset(), ")");
  }
  const ParsedRecord& r = **record;
  std::optional<CdxjEntry> expected = EntryForRecord(r, entry.filename);
  if (!expected.has_value()) {
    return absl::StrCat(where, ": a ", r.Field("WARC-Type"), " record of ",
                        r.Field("WARC-Target-URI"), ", which is not indexed");
  }
  if (expected->url != entry.url || expected->timestamp != entry.timestamp) {
    return absl::StrCat(where, ": the record there is of ", expected->url, " at ",
                        expected->timestamp, ", the line says ", entry.url, " at ",
                        entry.timestamp);
  }
  // A record's length (cdxj_indexer.h): in a plain file to the end of its block, in a gzip file
  // to the next member.
  const uint64_t block_end = (*reader)->block_end();
  absl::StatusOr<std::optional<ParsedRecord>> after = (*reader)->Next();
  uint64_t end = after.ok() && after->has_value() ? (*reader)->offset() : FileSize(warc_path);
  if (!(*reader)->compressed()) end = block_end;
  if (after.ok() && end - entry.offset != entry.length) {
    return absl::StrCat(where, ": the record is ", end - entry.offset, " bytes, the line says ",
                        entry.length);
  }
  expected->offset = entry.offset;
  expected->length = entry.length;
  return absl::StrCat(where, ": the record's line would be ", Shorten(expected->ToLine()));
}

class Comparison {
 public:
  Comparison(const CdxjVerifyOptions& options, CdxjVerifyReport& report)
      : options_(options), report_(report) {}

  void Problem(std::string text) {
    if (report_.problems.size() < options_.max_problems)
      report_.problems.push_back(std::move(text));
  }

  void Unexpected(std::string_view line, const std::string& warc_dir) {
    ++report_.unexpected;
    if (report_.problems.size() >= options_.max_problems) return;
    absl::StatusOr<CdxjEntry> entry = CdxjEntry::Parse(line);
    if (!entry.ok()) {
      Problem(absl::StrCat("line does not parse: ", Shorten(line)));
      return;
    }
    Problem(absl::StrCat(
        "wrong line ", Shorten(line), ": ",
        Diagnose(*entry, (std::filesystem::path(warc_dir) / entry->filename).string())));
  }

  void Missing(std::string_view line) {
    ++report_.missing;
    Problem(absl::StrCat("missing line ", Shorten(line)));
  }

 private:
  const CdxjVerifyOptions& options_;
  CdxjVerifyReport& report_;
};

}  // namespace

CdxjVerifyReport VerifyCdxjIndex(const std::string& cdxj_path, const CdxjVerifyOptions& options) {
  CdxjVerifyReport report;
  const std::filesystem::path index(cdxj_path);
  const std::string index_dir =
      index.has_parent_path() ? index.parent_path().string() : std::string(".");
  const std::string warc_dir = options.warc_dir.empty() ? index_dir : options.warc_dir;
  const std::string temp_dir = options.temp_dir.empty() ? index_dir : options.temp_dir;
  Comparison compare(options, report);

  // Pass 1: the lines parse and are in order; which WARC files they name.
  absl::StatusOr<std::unique_ptr<LineReader>> lines = LineReader::Open(cdxj_path);
  if (!lines.ok()) {
    report.status = lines.status();
    return report;
  }
  std::set<std::string> filenames;
  std::string previous;
  bool sorted = true;
  while (std::optional<std::string_view> line = (*lines)->Next()) {
    ++report.lines;
    if (report.lines > 1 && *line < previous && sorted) {
      sorted = false;
      compare.Problem(
          absl::StrCat("line ", report.lines, " is out of order (the index is not sorted)"));
    }
    previous.assign(*line);
    absl::StatusOr<CdxjEntry> entry = CdxjEntry::Parse(*line);
    if (entry.ok()) filenames.insert(entry->filename);
  }

  // The lines the WARC files should have, sorted.
  ExternalSorter expected({.temp_dir = temp_dir});
  for (const std::string& name : filenames) {
    const std::string path = (std::filesystem::path(warc_dir) / name).string();
    absl::Status status =
        IndexWarcFile(path, name, CdxjIndexOptions{}, [&expected](const PlacedRecord& placed) {
          return placed.entry == nullptr ? absl::OkStatus() : expected.Add(placed.entry->ToLine());
        });
    if (!status.ok()) {
      report.status = status;
      return report;
    }
    ++report.warc_files;
  }

  // The index's lines in order: read again, or sorted first when they were not.
  ExternalSorter index_sorted({.temp_dir = temp_dir});
  std::unique_ptr<LineReader> reread;
  if (sorted) {
    absl::StatusOr<std::unique_ptr<LineReader>> again = LineReader::Open(cdxj_path);
    if (!again.ok()) {
      report.status = again.status();
      return report;
    }
    reread = *std::move(again);
  }
  // Pairs the expected lines with the index's, both in order.
  std::optional<std::string> current;  // the index line not yet matched
  auto next_index_line = [&]() -> std::optional<std::string> {
    std::optional<std::string_view> line = reread->Next();
    if (!line.has_value()) return std::nullopt;
    return std::string(*line);
  };
  auto compare_with = [&](std::string_view want) -> absl::Status {
    while (current.has_value() && *current < want) {
      compare.Unexpected(*current, warc_dir);
      current = next_index_line();
    }
    if (current.has_value() && *current == want) {
      current = next_index_line();
    } else {
      compare.Missing(want);
    }
    return absl::OkStatus();
  };
  absl::Status status = absl::OkStatus();
  if (!sorted) {
    // Compare the sorted copy: write it to a run and read it back like the file.
    std::FILE* copy = std::tmpfile();
    if (copy == nullptr) {
      report.status = absl::UnavailableError("cannot create a temporary file");
      return report;
    }
    absl::StatusOr<std::unique_ptr<LineReader>> again = LineReader::Open(cdxj_path);
    if (again.ok()) {
      while (std::optional<std::string_view> line = (*again)->Next()) {
        if (absl::Status s = index_sorted.Add(*line); !s.ok()) status = s;
      }
    }
    status.Update(index_sorted.Finish([copy](std::string_view line) {
      std::fwrite(line.data(), 1, line.size(), copy);
      std::fputc('\n', copy);
      return absl::OkStatus();
    }));
    std::rewind(copy);
    reread = LineReader::Adopt(copy);
  }
  current = next_index_line();
  status.Update(expected.Finish(compare_with));
  while (current.has_value()) {
    compare.Unexpected(*current, warc_dir);
    current = next_index_line();
  }
  if (!status.ok()) {
    report.status = status;
  } else if (!sorted || report.missing > 0 || report.unexpected > 0) {
    report.status = absl::DataLossError(absl::StrCat(sorted ? "" : "not sorted; ", report.missing,
                                                     " lines missing, ", report.unexpected,
                                                     " lines wrong or of no record"));
  }
  return report;
}

}  // namespace crawler::warc
