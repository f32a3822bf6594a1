// ExternalSorter: sorts text lines in bytewise order (as LC_ALL=C sort does) in bounded memory:
// lines are held up to a memory budget, then sorted and spilled to a run file; Finish merges
// the runs (at most kMaxFanIn at a time, in passes when there are more). Indexes of any size are
// sorted this way: a CDXJ line per archived record, for files and packages of any size.
//
// Run files are created in `temp_dir` and unlinked at once (only their descriptors keep them),
// so nothing is left behind, whatever becomes of the process.
//
// Thread-safety: one thread at a time.
#ifndef CRAWLER_LIB_WARC_EXTERNAL_SORTER_H_
#define CRAWLER_LIB_WARC_EXTERNAL_SORTER_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace crawler::warc {

struct ExternalSorterOptions {
  // Where runs are spilled. Required.
  std::string temp_dir;
  // Bytes of lines held before a sorted run is spilled.
  size_t memory_bytes = size_t{64} << 20;
  // Identical lines are passed on once.
  bool unique = false;
};

class ExternalSorter {
 public:
  // Runs merged at once: each needs a descriptor and a read buffer.
  static constexpr size_t kMaxFanIn = 64;

  explicit ExternalSorter(ExternalSorterOptions options);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Adds one line (without its newline; one containing '\n' is kInvalidArgument). kUnavailable
  // when a run cannot be written.
  absl::Status Add(std::string_view line);

  // Calls `emit` with every line added, in order, then forgets them. Stops at the first non-OK
  // status `emit` returns, and returns it.
  absl::Status Finish(const std::function<absl::Status(std::string_view)>& emit);

  uint64_t lines() const { return lines_; }
  size_t runs() const { return runs_.size(); }

 private:
  struct Run;
  absl::Status Spill();
  // A new, already unlinked, file in temp_dir.
  absl::Status NewRunFile(std::FILE*& file);
  // Merges `runs` in order into `emit`.
  absl::Status Merge(std::vector<std::unique_ptr<Run>> runs,
                     const std::function<absl::Status(std::string_view)>& emit);

  const ExternalSorterOptions options_;
  std::vector<std::string> lines_in_memory_;
  size_t bytes_in_memory_ = 0;
  uint64_t lines_ = 0;
  std::vector<std::unique_ptr<Run>> runs_;
};

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_EXTERNAL_SORTER_H_
