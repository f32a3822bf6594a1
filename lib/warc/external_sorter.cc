#include "lib/warc/external_sorter.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::warc {

// A spilled run: a file of sorted lines, read back one line at a time.
struct ExternalSorter::Run {
  std::FILE* file = nullptr;
  char* buffer = nullptr;  // getline's
  size_t capacity = 0;
  std::string_view line;  // the current line, valid until Advance

  ~Run() {
    std::free(buffer);
    if (file != nullptr) std::fclose(file);
  }
  // Reads the next line; false at the end (or on a read error, told apart by ferror).
  bool Advance() {
    const ssize_t n = ::getline(&buffer, &capacity, file);
    if (n <= 0) return false;
    line = std::string_view(buffer, static_cast<size_t>(n));
    if (line.back() == '\n') line.remove_suffix(1);
    return true;
  }
};

ExternalSorter::ExternalSorter(ExternalSorterOptions options) : options_(std::move(options)) {}

ExternalSorter::~ExternalSorter() = default;

absl::Status ExternalSorter::Add(std::string_view line) {
  if (line.find('\n') != std::string_view::npos) {
    return absl::InvalidArgumentError("a line to sort contains a newline");
  }
  lines_in_memory_.emplace_back(line);
  // The string's own bytes and its bookkeeping.
  bytes_in_memory_ += line.size() + sizeof(std::string);
  ++lines_;
  if (bytes_in_memory_ >= options_.memory_bytes) return Spill();
  return absl::OkStatus();
}

absl::Status ExternalSorter::NewRunFile(std::FILE*& file) {
  std::string pattern =
      absl::StrCat(options_.temp_dir.empty() ? "." : options_.temp_dir, "/.sort-run-XXXXXX");
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot create a sort run in ", options_.temp_dir,
                                               ": ", std::strerror(errno)));
  }
  ::unlink(pattern.c_str());
  file = ::fdopen(fd, "w+");
  if (file == nullptr) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("fdopen: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status ExternalSorter::Spill() {
  std::sort(lines_in_memory_.begin(), lines_in_memory_.end());
  auto run = std::make_unique<Run>();
  if (absl::Status s = NewRunFile(run->file); !s.ok()) return s;
  const std::string* last = nullptr;
  for (const std::string& line : lines_in_memory_) {
    if (options_.unique && last != nullptr && *last == line) continue;
    last = &line;
    std::fwrite(line.data(), 1, line.size(), run->file);
    std::fputc('\n', run->file);
  }
  if (std::fflush(run->file) != 0 || std::ferror(run->file)) {
    return absl::UnavailableError(
        absl::StrCat("cannot write a sort run in ", options_.temp_dir, ": ", std::strerror(errno)));
  }
  std::rewind(run->file);
  runs_.push_back(std::move(run));
  lines_in_memory_.clear();
  lines_in_memory_.shrink_to_fit();
  bytes_in_memory_ = 0;
  return absl::OkStatus();
}

absl::Status ExternalSorter::Merge(std::vector<std::unique_ptr<Run>> runs,
                                   const std::function<absl::Status(std::string_view)>& emit) {
  // Smallest current line first; ties go to the earlier run, so equal lines keep their order.
  auto later = [&runs](size_t a, size_t b) {
    const int c = runs[a]->line.compare(runs[b]->line);
    return c > 0 || (c == 0 && a > b);
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i]->Advance()) heap.push(i);
  }
  std::string last;
  bool have_last = false;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    if (!options_.unique || !have_last || runs[i]->line != last) {
      if (absl::Status s = emit(runs[i]->line); !s.ok()) return s;
      if (options_.unique) {
        last.assign(runs[i]->line);
        have_last = true;
      }
    }
    if (runs[i]->Advance()) {
      heap.push(i);
    } else if (std::ferror(runs[i]->file)) {
      return absl::UnavailableError("cannot read back a sort run");
    }
  }
  return absl::OkStatus();
}

absl::Status ExternalSorter::Finish(const std::function<absl::Status(std::string_view)>& emit) {
  if (runs_.empty()) {
    // Everything fits in memory: no file at all.
    std::sort(lines_in_memory_.begin(), lines_in_memory_.end());
    const std::string* last = nullptr;
    absl::Status status = absl::OkStatus();
    for (const std::string& line : lines_in_memory_) {
      if (options_.unique && last != nullptr && *last == line) continue;
      last = &line;
      status = emit(line);
      if (!status.ok()) break;
    }
    lines_in_memory_.clear();
    lines_ = 0;
    return status;
  }
  if (!lines_in_memory_.empty()) {
    if (absl::Status s = Spill(); !s.ok()) return s;
  }
  // Too many runs to merge at once: merge the first kMaxFanIn into one, until few enough are
  // left.
  while (runs_.size() > kMaxFanIn) {
    std::vector<std::unique_ptr<Run>> group;
    for (size_t i = 0; i < kMaxFanIn; ++i) group.push_back(std::move(runs_[i]));
    runs_.erase(runs_.begin(), runs_.begin() + kMaxFanIn);
    auto merged = std::make_unique<Run>();
    if (absl::Status s = NewRunFile(merged->file); !s.ok()) return s;
    std::FILE* out = merged->file;
    absl::Status s = Merge(std::move(group), [out](std::string_view line) {
      std::fwrite(line.data(), 1, line.size(), out);
      std::fputc('\n', out);
      return std::ferror(out) ? absl::UnavailableError("cannot write a sort run")
                              : absl::OkStatus();
    });
    if (!s.ok()) return s;
    if (std::fflush(out) != 0) return absl::UnavailableError("cannot write a sort run");
    std::rewind(out);
    runs_.push_back(std::move(merged));
  }
  absl::Status status = Merge(std::move(runs_), emit);
  runs_.clear();
  lines_ = 0;
  return status;
}

}  // namespace crawler::warc
