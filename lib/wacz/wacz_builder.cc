#include "lib/wacz/wacz_builder.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/sha256.h"
#include "lib/json/json_string.h"
#include "lib/wacz/page_list.h"
#include "lib/wacz/zip_writer.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/gzip_member.h"
#include "lib/warc/warc_record.h"

namespace crawler::wacz {
namespace {

constexpr std::string_view kWaczVersion = "1.1.1";
// Index blocks are compressed once per package and read many times: libdeflate's level 6.
constexpr int kIndexGzipLevel = 6;

// A file staged in temp_dir for the package, removed when this goes.
class StagedFile {
 public:
  static absl::StatusOr<std::unique_ptr<StagedFile>> Create(const std::string& dir) {
    std::string path = absl::StrCat(dir.empty() ? "." : dir, "/.wacz-stage-XXXXXX");
    const int fd = ::mkstemp(path.data());
    if (fd < 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot create a staging file in ", dir, ": ", std::strerror(errno)));
    }
    std::FILE* file = ::fdopen(fd, "w");
    if (file == nullptr) {
      ::close(fd);
      ::unlink(path.c_str());
      return absl::UnavailableError(absl::StrCat("fdopen: ", std::strerror(errno)));
    }
    return std::unique_ptr<StagedFile>(new StagedFile(std::move(path), file));
  }
  ~StagedFile() {
    if (file_ != nullptr) std::fclose(file_);
    ::unlink(path_.c_str());
  }

  absl::Status Write(std::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return absl::UnavailableError(
          absl::StrCat("cannot write ", path_, ": ", std::strerror(errno)));
    }
    written_ += bytes.size();
    return absl::OkStatus();
  }
  absl::Status WriteLine(std::string_view line) {
    if (absl::Status s = Write(line); !s.ok()) return s;
    return Write("\n");
  }
  // Flushes and closes the file for writing; its path can then be read.
  absl::Status Finish() {
    const bool ok = std::fflush(file_) == 0 && std::fclose(file_) == 0;
    file_ = nullptr;
    return ok ? absl::OkStatus()
              : absl::UnavailableError(
                    absl::StrCat("cannot write ", path_, ": ", std::strerror(errno)));
  }
  const std::string& path() const { return path_; }
  uint64_t written() const { return written_; }

 private:
  StagedFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  const std::string path_;
  std::FILE* file_;
  uint64_t written_ = 0;
};

absl::Status CheckInputs(const WaczOptions& options) {
  if (options.warc_files.empty()) return absl::InvalidArgumentError("no WARC files to package");
  if (options.output.empty()) return absl::InvalidArgumentError("no output file");
  if (options.lines_per_block == 0) return absl::InvalidArgumentError("lines_per_block is 0");
  std::map<std::string, std::string> by_name;
  for (const std::string& path : options.warc_files) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (!name.ends_with(".warc.gz") && !name.ends_with(".warc")) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": not a WARC file name (*.warc.gz or *.warc)"));
    }
    auto [it, inserted] = by_name.emplace(name, path);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is named twice (", it->second, " and ",
                                                     path, "): a package holds one archive/",
                                                     name));
    }
  }
  return absl::OkStatus();
}

// The compressed index (WACZ 1.1.1 "indexes", pywb's ZipNum form): `lines` in gzip members of
// `per_block` lines into `data`, and for each member a line of `idx`.
class CompressedIndexWriter {
 public:
  CompressedIndexWriter(StagedFile& data, StagedFile& idx, size_t per_block)
      : data_(data), idx_(idx), per_block_(per_block) {}

  absl::Status Start() {
    return idx_.WriteLine(R"(!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"})");
  }
  absl::Status Add(std::string_view line) {
    if (lines_in_block_ == 0) {
      // The member's key: the line up to its JSON ("<urlkey> <timestamp>").
      const size_t json = line.find(" {");
      first_.assign(line.substr(0, json == std::string_view::npos ? line.size() : json));
    }
    block_.append(line).push_back('\n');
    if (++lines_in_block_ == per_block_) return Flush();
    return absl::OkStatus();
  }
  absl::Status Flush() {
    if (lines_in_block_ == 0) return absl::OkStatus();
    const std::string member = warc::GzipMember(block_, kIndexGzipLevel);
    if (member.empty()) return absl::InternalError("gzip compression of an index block failed");
    const uint64_t offset = data_.written();
    if (absl::Status s = data_.Write(member); !s.ok()) return s;
    std::string line = absl::StrCat(first_, " {\"offset\":", offset, ",\"length\":", member.size(),
                                    ",\"digest\":");
    json::AppendJsonString(fingerprint::Sha256Labelled(member), line);
    line.push_back('}');
    ++blocks_;
    block_.clear();
    lines_in_block_ = 0;
    return idx_.WriteLine(line);
  }
  uint64_t blocks() const { return blocks_; }

 private:
  StagedFile& data_;
  StagedFile& idx_;
  const size_t per_block_;
  std::string block_;
  std::string first_;
  size_t lines_in_block_ = 0;
  uint64_t blocks_ = 0;
};

std::string DatapackageJson(const WaczOptions& options, const std::vector<ZipEntryInfo>& files) {
  std::string out = "{\n  \"profile\": \"data-package\",\n  \"resources\": [";
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = std::filesystem::path(files[i].name).filename().string();
    out += i == 0 ? "\n    {\"name\": " : ",\n    {\"name\": ";
    json::AppendJsonString(absl::AsciiStrToLower(name), out);
    out += ", \"path\": ";
    json::AppendJsonString(files[i].name, out);
    out += ", \"hash\": ";
    json::AppendJsonString(files[i].sha256, out);
    absl::StrAppend(&out, ", \"bytes\": ", files[i].size, "}");
  }
  out += "\n  ],\n  \"wacz_version\": ";
  json::AppendJsonString(kWaczVersion, out);
  if (!options.title.empty()) {
    out += ",\n  \"title\": ";
    json::AppendJsonString(options.title, out);
  }
  out += ",\n  \"software\": ";
  json::AppendJsonString(options.software, out);
  out += ",\n  \"created\": ";
  json::AppendJsonString(warc::FormatWarcDate(options.created), out);
  out += "\n}\n";
  return out;
}

// The generated entries of a package, staged in temp_dir before they go into it.
struct Staged {
  std::unique_ptr<StagedFile> index;  // index.cdxj, or index.cdx.gz in the compressed form
  std::unique_ptr<StagedFile> idx;    // index.idx of the compressed form
  std::unique_ptr<StagedFile> pages;  // pages.jsonl
};

// Writes the sorted index lines in the report's index form into `staged`.
absl::Status StageIndex(warc::ExternalSorter& index, const WaczOptions& options,
                        const std::string& temp_dir, WaczReport& report, Staged& staged) {
  absl::StatusOr<std::unique_ptr<StagedFile>> data = StagedFile::Create(temp_dir);
  if (!data.ok()) return data.status();
  staged.index = *std::move(data);
  absl::Status status = absl::OkStatus();
  if (report.index_form == IndexForm::kCompressed) {
    absl::StatusOr<std::unique_ptr<StagedFile>> idx = StagedFile::Create(temp_dir);
    if (!idx.ok()) return idx.status();
    staged.idx = *std::move(idx);
    CompressedIndexWriter writer(*staged.index, *staged.idx, options.lines_per_block);
    status = writer.Start();
    if (status.ok()) {
      status = index.Finish([&writer](std::string_view line) { return writer.Add(line); });
    }
    if (status.ok()) status = writer.Flush();
    if (status.ok()) status = staged.idx->Finish();
    report.index_blocks = writer.blocks();
  } else {
    StagedFile& file = *staged.index;
    status = index.Finish([&file](std::string_view line) { return file.WriteLine(line); });
  }
  if (!status.ok()) return status;
  return staged.index->Finish();
}

absl::Status StagePages(PageList& pages, const std::string& temp_dir, Staged& staged) {
  absl::StatusOr<std::unique_ptr<StagedFile>> file = StagedFile::Create(temp_dir);
  if (!file.ok()) return file.status();
  staged.pages = *std::move(file);
  StagedFile& out = *staged.pages;
  if (absl::Status s = pages.Finish([&out](std::string_view line) { return out.WriteLine(line); });
      !s.ok()) {
    return s;
  }
  return out.Finish();
}

// Writes the package: the WARC files, the staged entries, datapackage.json and its digest,
// under a temporary name renamed when complete (and removed when not).
absl::Status WritePackage(const WaczOptions& options, const Staged& staged, WaczReport& report) {
  const std::string partial = absl::StrCat(options.output, ".partial-", ::getpid());
  absl::StatusOr<std::unique_ptr<ZipWriter>> zip = ZipWriter::Create(
      partial, {.modified = options.created, .zip64_threshold = options.zip64_threshold});
  if (!zip.ok()) return zip.status();
  std::vector<ZipEntryInfo> resources;
  auto add_file = [&](std::string_view name, const std::string& source) -> absl::Status {
    absl::StatusOr<ZipEntryInfo> info = (*zip)->AddFile(name, source);
    if (!info.ok()) return info.status();
    resources.push_back(*std::move(info));
    return absl::OkStatus();
  };
  absl::Status status = absl::OkStatus();
  for (const std::string& path : options.warc_files) {
    if (!status.ok()) break;
    status =
        add_file(absl::StrCat("archive/", std::filesystem::path(path).filename().string()), path);
  }
  if (status.ok() && report.index_form == IndexForm::kCompressed) {
    status = add_file("indexes/index.cdx.gz", staged.index->path());
    if (status.ok()) status = add_file("indexes/index.idx", staged.idx->path());
  } else if (status.ok()) {
    status = add_file("indexes/index.cdxj", staged.index->path());
  }
  if (status.ok()) status = add_file("pages/pages.jsonl", staged.pages->path());
  if (status.ok()) {
    const std::string datapackage = DatapackageJson(options, resources);
    absl::StatusOr<ZipEntryInfo> info = (*zip)->AddBytes("datapackage.json", datapackage);
    status = info.status();
    if (status.ok()) {
      std::string digest = "{\n  \"path\": \"datapackage.json\",\n  \"hash\": ";
      json::AppendJsonString(info->sha256, digest);
      digest += "\n}\n";
      status = (*zip)->AddBytes("datapackage-digest.json", digest).status();
    }
  }
  if (status.ok()) status = (*zip)->Close();
  if (status.ok()) {
    report.bytes = (*zip)->bytes_written();
    if (std::rename(partial.c_str(), options.output.c_str()) != 0) {
      status = absl::UnavailableError(absl::StrCat("cannot rename ", partial, " to ",
                                                   options.output, ": ", std::strerror(errno)));
    }
  }
  if (!status.ok()) std::remove(partial.c_str());
  return status;
}

}  // namespace

absl::StatusOr<WaczReport> BuildWacz(const WaczOptions& options) {
  if (absl::Status s = CheckInputs(options); !s.ok()) return s;
  const std::filesystem::path output(options.output);
  const std::string temp_dir = !options.temp_dir.empty()  ? options.temp_dir
                               : output.has_parent_path() ? output.parent_path().string()
                                                          : std::string(".");
  const warc::ExternalSorterOptions sort{.temp_dir = temp_dir,
                                         .memory_bytes = options.sort_memory_bytes / 2};
  WaczReport report;

  // One pass over every WARC: its index lines and its pages.
  warc::ExternalSorter index(sort);
  PageList pages(sort);
  for (const std::string& path : options.warc_files) {
    const std::string name = std::filesystem::path(path).filename().string();
    warc::CdxjIndexStats stats;
    absl::Status status = warc::IndexWarcFile(
        path, name, {},
        [&](const warc::PlacedRecord& placed) -> absl::Status {
          if (placed.entry != nullptr) {
            if (absl::Status s = index.Add(placed.entry->ToLine()); !s.ok()) return s;
          }
          return pages.Add(placed.record);
        },
        &stats);
    if (!status.ok()) return status;
    ++report.warc_files;
    report.records += stats.records;
    report.index_lines += stats.entries;
  }
  report.index_form = options.index_form;
  if (report.index_form == IndexForm::kAuto) {
    report.index_form = report.index_lines >= options.compressed_index_min_lines
                            ? IndexForm::kCompressed
                            : IndexForm::kCdxj;
  }
  Staged staged;
  if (absl::Status s = StageIndex(index, options, temp_dir, report, staged); !s.ok()) return s;
  if (absl::Status s = StagePages(pages, temp_dir, staged); !s.ok()) return s;
  report.pages = pages.pages();
  report.seeds = pages.seeds();
  if (absl::Status s = WritePackage(options, staged, report); !s.ok()) return s;
  return report;
}

}  // namespace crawler::wacz
