// `crawler warc index`: the CDXJ index of WARC files (lib/warc/cdxj_indexer.h), the lines pywb
// and ReplayWeb.page read and warcio.js's `cdx-index` writes.
//
//   crawler warc index FILE...              one sorted index of all FILEs on stdout
//   crawler warc index -o OUT.cdxj FILE...  the same into OUT.cdxj (complete or not at all)
//   crawler warc index --beside FILE...     X.cdxj beside each X.warc.gz, sorted
//
// Exit 0 when every file was indexed; 1 when a file is damaged or cannot be indexed (stderr:
// "crawler warc index: FILE: damaged at offset N: <reason> (after M intact records)"), and
// then nothing is written for it, or when two files of one index have the same name; 2 for
// bad flags or a file that cannot be opened.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/warc/external_sorter.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct IndexArgs {
  std::vector<std::string> files;
  std::string output;
  bool beside = false;
};

int ExitFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  return absl::IsNotFound(status) ? kExitUsage : kExitFailure;
}

void Report(const absl::Status& status) {
  std::cerr << "crawler warc index: " << status.message() << "\n";
}

// One index of every file, sorted, to stdout or to `output` (written beside, renamed at the end).
int RunMergedIndex(const IndexArgs& args) {
  const std::filesystem::path out(args.output);
  const std::string temp_dir =
      args.output.empty() || !out.has_parent_path() ? std::string(".") : out.parent_path().string();
  // Lines name their file by its name alone: two files of one name could not be told apart.
  std::map<std::string, std::string> names;
  for (const std::string& file : args.files) {
    const std::string name = std::filesystem::path(file).filename().string();
    if (auto [it, inserted] = names.emplace(name, file); !inserted) {
      std::cerr << "crawler warc index: " << name << " is named twice (" << it->second << " and "
                << file << "): the index lines could not tell them apart\n";
      return kExitFailure;
    }
  }
  warc::ExternalSorter sorter({.temp_dir = temp_dir});
  for (const std::string& file : args.files) {
    const std::string name = std::filesystem::path(file).filename().string();
    absl::Status status = warc::IndexWarcFile(
        file, name, warc::CdxjIndexOptions{}, [&sorter](const warc::PlacedRecord& placed) {
          return placed.entry == nullptr ? absl::OkStatus() : sorter.Add(placed.entry->ToLine());
        });
    if (!status.ok()) {
      Report(status);
      return ExitFor(status);
    }
  }
  std::string temp;
  std::FILE* sink = stdout;
  if (!args.output.empty()) {
    temp = absl::StrCat(args.output, ".tmp-", ::getpid());
    sink = std::fopen(temp.c_str(), "w");
    if (sink == nullptr) {
      std::cerr << "crawler warc index: cannot create " << temp << ": " << std::strerror(errno)
                << "\n";
      return kExitUsage;
    }
  }
  absl::Status status = sorter.Finish([sink](std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), sink);
    std::fputc('\n', sink);
    return std::ferror(sink) ? absl::UnavailableError("write failed") : absl::OkStatus();
  });
  if (std::fflush(sink) != 0 && status.ok()) status = absl::UnavailableError(std::strerror(errno));
  if (args.output.empty()) {
    if (!status.ok()) Report(status);
    return status.ok() ? kExitOk : kExitFailure;
  }
  if (std::fclose(sink) != 0 && status.ok()) status = absl::UnavailableError(std::strerror(errno));
  if (status.ok() && std::rename(temp.c_str(), args.output.c_str()) != 0) {
    status = absl::UnavailableError(std::strerror(errno));
  }
  if (!status.ok()) {
    std::remove(temp.c_str());
    std::cerr << "crawler warc index: cannot write " << args.output << ": " << status.message()
              << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

int RunBesideIndexes(const IndexArgs& args) {
  int rc = kExitOk;
  for (const std::string& file : args.files) {
    const std::string cdxj = warc::CdxjPathFor(file);
    if (cdxj == file) {
      std::cerr << "crawler warc index: " << file << ": not named *.warc.gz or *.warc\n";
      rc = std::max(rc, kExitUsage);
      continue;
    }
    warc::CdxjIndexStats stats;
    absl::Status status = warc::WriteCdxjIndex(file, cdxj, {}, &stats);
    if (!status.ok()) {
      Report(status);
      rc = std::max(rc, ExitFor(status));
      continue;
    }
    std::cout << cdxj << ": " << stats.entries << " lines (" << stats.records << " records)\n";
  }
  return rc;
}

}  // namespace

void AddWarcIndexCommand(CLI::App& warc, int* exit_code) {
  auto args = std::make_shared<IndexArgs>();
  CLI::App* index = warc.add_subcommand(
      "index", "Write the CDXJ index (pywb, ReplayWeb.page) of WARC files, sorted");
  index->add_option("files", args->files, "WARC files (.warc.gz or .warc)")->required();
  index->add_option("-o,--output", args->output, "Write the index of all files to this file");
  index->add_flag("--beside", args->beside, "Write X.cdxj beside each X.warc.gz");
  index->callback([args, exit_code] {
    if (args->beside && !args->output.empty()) {
      std::cerr << "crawler warc index: --beside and --output exclude each other\n";
      *exit_code = kExitUsage;
      return;
    }
    *exit_code = args->beside ? RunBesideIndexes(*args) : RunMergedIndex(*args);
  });
}

}  // namespace crawler::cli
