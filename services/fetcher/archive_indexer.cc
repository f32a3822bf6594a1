#include "services/fetcher/archive_indexer.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "lib/warc/cdxj_indexer.h"

namespace crawler::fetcher {
namespace {

bool IsFinishedWarc(const std::string& name) {
  return name.ends_with(".warc.gz") || name.ends_with(".warc");
}

void ListFinished(const std::filesystem::path& dir, std::vector<std::string>& out) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && IsFinishedWarc(entry.path().filename().string())) {
      out.push_back(entry.path().string());
    }
  }
}

}  // namespace

std::vector<std::string> FinishedWarcFiles(const std::string& warc_dir) {
  std::vector<std::string> files;
  ListFinished(warc_dir, files);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(warc_dir, ec)) {
    if (entry.is_directory(ec)) ListFinished(entry.path(), files);
  }
  std::sort(files.begin(), files.end());
  return files;
}

ArchiveIndexer::ArchiveIndexer(ArchiveIndexerOptions options) : options_(std::move(options)) {}

void ArchiveIndexer::Tick(absl::Time now) {
  {
    absl::MutexLock lock(&mu_);
    if (now - last_pass_ < options_.interval) return;
    last_pass_ = now;
  }
  IndexPending();
}

void ArchiveIndexer::Announce(std::string warc, std::string cdxj) {
  absl::MutexLock lock(&announced_mu_);
  announced_.emplace_back(std::move(warc), std::move(cdxj));
}

uint64_t ArchiveIndexer::IndexPending() {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::string>> announced;
  {
    absl::MutexLock announced_lock(&announced_mu_);
    announced.swap(announced_);
  }
  for (const auto& [warc, cdxj] : announced) {
    options_.log.Info("archive: ", warc, " indexed as it was written: ", cdxj);
    if (options_.indexed) options_.indexed(warc, cdxj);
  }
  const uint64_t before = indexed();
  for (const std::string& warc : FinishedWarcFiles(options_.warc_dir)) {
    std::error_code ec;
    if (!std::filesystem::exists(warc::CdxjPathFor(warc), ec)) IndexOne(warc);
  }
  return indexed() - before;
}

void ArchiveIndexer::IndexOne(const std::string& warc) {
  struct stat st {};
  if (::stat(warc.c_str(), &st) != 0) return;  // gone meanwhile
  const std::pair<uint64_t, int64_t> version{
      static_cast<uint64_t>(st.st_size),
      int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  if (auto it = failures_.find(warc); it != failures_.end() && it->second == version) return;
  const std::string cdxj = warc::CdxjPathFor(warc);
  warc::CdxjIndexStats stats;
  absl::Status status = warc::WriteCdxjIndex(warc, cdxj, {}, &stats);
  if (status.ok()) {
    failures_.erase(warc);
    indexed_.fetch_add(1, std::memory_order_relaxed);
    options_.log.Info("archive: indexed ", warc, ": ", stats.entries, " lines in ", cdxj);
    if (options_.indexed) options_.indexed(warc, cdxj);
    return;
  }
  failures_[warc] = version;
  failed_.fetch_add(1, std::memory_order_relaxed);
  options_.log.Warning("archive: cannot index ", warc, ": ", status.message());
}

}  // namespace crawler::fetcher
