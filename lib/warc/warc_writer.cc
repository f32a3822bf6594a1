#include "lib/warc/warc_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/encoding/hex.h"

namespace crawler::warc {
namespace {

absl::Status ErrnoStatus(const char* what, const std::string& path, int err) {
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(err)));
}

constexpr std::string_view kOpenSuffix = ".open";

// Takes the writer's exclusive lock on the file `fd` has open at `path` without waiting, and
// checks that `path` still names that file (a recovering writer may have removed or renamed it
// between our open() and the lock). False if another writer holds the lock or the name moved;
// the caller then leaves the file alone.
bool LockAndConfirm(int fd, const std::string& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return false;
  struct stat by_fd {};
  struct stat by_path {};
  return ::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_path) == 0 &&
         by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino;
}

// True if `name` is "<prefix>-<YYYYmmddHHMMSS>-...", a file of a writer with this prefix (and
// not of one whose prefix merely starts with ours, such as "<prefix>-p1").
bool IsNameOfPrefix(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return false;
  name.remove_prefix(prefix.size());
  if (name.size() < 16 || name[0] != '-' || name[15] != '-') return false;
  return std::all_of(name.begin() + 1, name.begin() + 15,
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

WarcWriter::WarcWriter(const WarcWriterOptions& options, const Clock& clock, uint64_t seed)
    : options_(options), clock_(clock), rng_(seed) {}

absl::StatusOr<std::unique_ptr<WarcWriter>> WarcWriter::Open(const WarcWriterOptions& options,
                                                             const Clock& clock, uint64_t seed) {
  if (options.directory.empty()) return absl::InvalidArgumentError("WARC directory is empty");
  if (options.compression_level < 1 || options.compression_level > 9) {
    return absl::InvalidArgumentError("WARC compression_level must be in [1, 9]");
  }
  if (options.max_file_bytes < 4096) {
    return absl::InvalidArgumentError("WARC max_file_bytes must be at least 4096");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.directory, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create WARC directory ", options.directory, ": ", ec.message()));
  }
  absl::StatusOr<std::vector<Recovered>> recovered =
      RecoverInterruptedFiles(options.directory, options.prefix);
  if (!recovered.ok()) return recovered.status();
  std::unique_ptr<WarcWriter> writer(new WarcWriter(options, clock, seed));
  writer->recovered_ = *std::move(recovered);
  absl::MutexLock lock(&writer->mu_);
  for (const Recovered& r : writer->recovered_) {
    if (!r.path.empty()) writer->files_.push_back(r.path);
  }
  if (absl::Status s = writer->OpenNextFileLocked(); !s.ok()) return s;
  return writer;
}

WarcWriter::~WarcWriter() { Close().IgnoreError(); }

namespace {

// The length of the prefix of the file `fd` has open (at `path`) made of complete gzip members.
absl::StatusOr<uint64_t> CompleteMembersLength(int fd, const std::string& path) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return absl::InternalError("inflateInit2 failed");
  uint64_t consumed = 0;   // compressed bytes fed to zlib so far
  uint64_t complete = 0;   // end offset of the last member that ended cleanly
  char in[64 * 1024];
  char out[64 * 1024];
  bool corrupt = false;
  while (!corrupt) {
    const ssize_t n = ::pread(fd, in, sizeof in, static_cast<off_t>(consumed));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      inflateEnd(&zs);
      return ErrnoStatus("cannot read", path, err);
    }
    if (n == 0) break;
    zs.next_in = reinterpret_cast<Bytef*>(in);
    zs.avail_in = static_cast<uInt>(n);
    while (zs.avail_in > 0) {
      zs.next_out = reinterpret_cast<Bytef*>(out);
      zs.avail_out = sizeof out;
      const uInt before = zs.avail_in;
      const int rc = inflate(&zs, Z_NO_FLUSH);
      consumed += before - zs.avail_in;
      if (rc == Z_STREAM_END) {
        complete = consumed;
        inflateReset(&zs);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        corrupt = true;
        break;
      }
    }
  }
  inflateEnd(&zs);
  return complete;
}

}  // namespace

std::string WarcWriter::Recovered::Describe() const {
  if (path.empty()) {
    return absl::StrCat("warc: removed ", open_path, " of an interrupted run: no complete record (",
                        cut_bytes, " bytes)");
  }
  if (cut_bytes == 0) return absl::StrCat("warc: finished ", path, " of an interrupted run");
  return absl::StrCat("warc: finished ", path, " of an interrupted run: torn record at offset ",
                      kept_bytes, " cut (", cut_bytes,
                      " bytes); its page was not marked done and is fetched again");
}

absl::StatusOr<std::vector<WarcWriter::Recovered>> WarcWriter::RecoverInterruptedFiles(
    const std::string& directory, const std::string& prefix) {
  std::vector<Recovered> recovered;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (!absl::EndsWith(name, ".warc.gz.open") || !IsNameOfPrefix(name, prefix)) continue;
    const std::string path = entry.path().string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // finished by its writer meanwhile
      return ErrnoStatus("cannot open", path, errno);
    }
    // A live writer holds its file locked from creation until it has its final name; such a
    // file, and one that moved meanwhile, is not ours to touch.
    if (!LockAndConfirm(fd, path)) {
      ::close(fd);
      continue;
    }
    // Holding the lock: no writer appends to this file while it is read and cut back.
    absl::Status status = absl::OkStatus();
    absl::StatusOr<uint64_t> length = CompleteMembersLength(fd, path);
    const std::string final_path = path.substr(0, path.size() - kOpenSuffix.size());
    struct stat st {};
    const uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    if (!length.ok()) {
      status = length.status();
    } else if (*length == 0) {  // killed before its first record: nothing to keep
      ::unlink(path.c_str());
      recovered.push_back({.open_path = path, .kept_bytes = 0, .cut_bytes = size});
    } else if (::ftruncate(fd, static_cast<off_t>(*length)) != 0) {
      status = ErrnoStatus("cannot truncate", path, errno);
    } else if (std::rename(path.c_str(), final_path.c_str()) != 0) {
      status = ErrnoStatus("cannot rename", path, errno);
    } else {
      recovered.push_back({.path = final_path,
                           .open_path = path,
                           .kept_bytes = *length,
                           .cut_bytes = size > *length ? size - *length : 0});
    }
    ::close(fd);  // releases the lock, after the rename
    if (!status.ok()) return status;
  }
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot list ", directory, ": ", ec.message()));
  }
  std::sort(recovered.begin(), recovered.end(),
            [](const Recovered& a, const Recovered& b) { return a.open_path < b.open_path; });
  return recovered;
}

std::string WarcWriter::NewRecordId() {
  absl::MutexLock lock(&mu_);
  return NewRecordIdLocked();
}

std::string WarcWriter::NewRecordIdLocked() {
  // RFC 9562 version 4: 122 random bits, version nibble 4, variant bits 10.
  uint64_t hi = rng_();
  uint64_t lo = rng_();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
  // "<urn:uuid:" 8-4-4-4-12 lowercase hex digits ">", written directly (one per record: a
  // format string interpreter costs more than the random numbers).
  std::string id = "<urn:uuid:00000000-0000-0000-0000-000000000000>";
  char* digit = &id[10];
  for (int i = 15; i >= 0; --i) {
    *digit++ = encoding::kLowerHexDigits[(hi >> (4 * i)) & 15];
    if (i == 8 || i == 4) ++digit;  // the dashes after the 8th and 12th digits
  }
  ++digit;
  for (int i = 15; i >= 0; --i) {
    *digit++ = encoding::kLowerHexDigits[(lo >> (4 * i)) & 15];
    if (i == 12) ++digit;  // the dash after the 20th digit
  }
  return id;
}

absl::Status WarcWriter::OpenNextFileLocked() {
  const absl::Time now = clock_.Now();
  // The name is ours once we have created "<name>.open" (O_EXCL), hold its lock, and no
  // finished "<name>" exists: every writer goes through the ".open" name, and recovery skips
  // locked files. Names taken by another writer (of this process, or of another host with the
  // same pid on shared storage) move on to the next serial.
  std::string name;
  constexpr int kMaxAttempts = 1000;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxAttempts) {
      return absl::UnavailableError(absl::StrCat("cannot find a free WARC file name in ",
                                                 options_.directory, " after ", kMaxAttempts,
                                                 " tries (last: ", name, ")"));
    }
    ++serial_;
    name = absl::StrFormat("%s-%s-%05u-%d.warc.gz", options_.prefix,
                           absl::FormatTime("%Y%m%d%H%M%S", now, absl::UTCTimeZone()), serial_,
                           static_cast<int>(getpid()));
    final_path_ = (std::filesystem::path(options_.directory) / name).string();
    open_path_ = final_path_ + std::string(kOpenSuffix);
    fd_ = ::open(open_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      if (errno == EEXIST) continue;
      return ErrnoStatus("cannot create", open_path_, errno);
    }
    if (!LockAndConfirm(fd_, open_path_)) {  // a recovering writer took it for abandoned
      ::close(fd_);
      continue;
    }
    struct stat finished {};
    if (::stat(final_path_.c_str(), &finished) == 0) {
      ::unlink(open_path_.c_str());
      ::close(fd_);
      continue;
    }
    break;
  }
  file_bytes_ = 0;
  directory_unsynced_ = true;
  index_.reset();
  if (options_.write_index) {
    index_ = std::make_unique<ExternalSorter>(ExternalSorterOptions{
        .temp_dir = options_.directory, .memory_bytes = options_.index_memory_bytes});
  }

  WarcRecord info;
  info.type = RecordType::kWarcinfo;
  info.record_id = NewRecordIdLocked();
  info.date = now;
  info.filename = name;
  info.content_type = "application/warc-fields";
  // WARC 1.1 §6.2: a warcinfo block is "application/warc-fields" (name: value lines).
  auto field = [&info](const char* key, std::string_view value) {
    if (value.empty()) return;
    info.block.append(key).append(": ").append(value).append("\r\n");
  };
  field("software", options_.software);
  field("format", "WARC File Format 1.1");
  field("conformsTo",
        "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/");
  field("operator", options_.operator_name);
  field("description", options_.description);
  field("http-header-user-agent", options_.http_header_user_agent);
  field("robots", options_.robots_policy);
  warcinfo_id_ = info.record_id;
  if (absl::Status s =
          WriteBytesLocked(GzipMember(SerializeRecord(info), options_.compression_level));
      !s.ok()) {
    // Not even its warcinfo: no file rather than one that starts with part of a member (the
    // next write would append records after it). The next write opens another.
    ::close(fd_);
    fd_ = -1;
    std::remove(open_path_.c_str());
    return s;
  }
  ++records_;
  return absl::OkStatus();
}

absl::Status WarcWriter::CloseFileLocked() {
  if (fd_ < 0) return absl::OkStatus();
  // Renamed while still open, so still locked: once the lock goes, the ".open" name is gone
  // too, and no recovering writer can take the file for abandoned.
  absl::Status status = absl::OkStatus();
  // Its records are durable before the final name says the file is complete.
  if (options_.sync && unsynced_ && ::fsync(fd_) != 0) {
    status = ErrnoStatus("cannot fsync", open_path_, errno);
  }
  unsynced_ = false;
  directory_unsynced_ = true;
  // The index goes first, so that the final name always comes with it.
  const bool indexed = status.ok() && WriteIndexLocked();
  if (status.ok() && std::rename(open_path_.c_str(), final_path_.c_str()) != 0) {
    status = ErrnoStatus("cannot rename", open_path_, errno);
    if (indexed) std::remove(CdxjPathFor(final_path_).c_str());
  }
  if (status.ok() && indexed && options_.indexed) {
    options_.indexed(final_path_, CdxjPathFor(final_path_));
  }
  if (::close(fd_) != 0 && status.ok()) status = ErrnoStatus("cannot close", open_path_, errno);
  fd_ = -1;
  files_.push_back(final_path_);
  return status;
}

bool WarcWriter::WriteIndexLocked() {
  std::unique_ptr<ExternalSorter> index = std::move(index_);
  if (index == nullptr) return false;
  if (WriteSortedIndex(*index, CdxjPathFor(final_path_), options_.sync).ok()) return true;
  ++indexes_failed_;
  return false;
}

void WarcWriter::AbandonFileAfterFailedWriteLocked() {
  // A failed write (disk full, EIO) may have left part of a member: cut the file back to its
  // last complete one so that it reads cleanly to its end, and start a new file next time. If
  // even that fails, the ".open" name stays and the next Open() cuts it back
  // (RecoverInterruptedFiles).
  if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) == 0) {
    CloseFileLocked().IgnoreError();
  } else {
    ::close(fd_);
    fd_ = -1;
    index_.reset();  // the ".open" file is finished by the next Open, and indexed by reading
  }
}

absl::Status WarcWriter::WriteBytesLocked(std::string_view gz) {
  if (gz.empty()) return absl::InternalError("gzip compression of a WARC record failed");
  size_t done = 0;
  while (done < gz.size()) {
    const ssize_t n = ::write(fd_, gz.data() + done, gz.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot write", open_path_, errno);
    }
    done += static_cast<size_t>(n);
  }
  file_bytes_ += gz.size();
  bytes_ += gz.size();
  unsynced_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::string> WarcWriter::Write(WarcRecord record) {
  if (absl::Status s = WriteRecords(std::span<WarcRecord>(&record, 1)); !s.ok()) return s;
  return record.record_id;
}

absl::Status WarcWriter::WriteAll(std::vector<WarcRecord> records) {
  if (records.empty()) {
    absl::MutexLock lock(&mu_);
    return closed_ ? absl::FailedPreconditionError("WARC writer is closed") : absl::OkStatus();
  }
  return WriteRecords(records);
}

absl::Status WarcWriter::WriteRecords(std::span<WarcRecord> records) {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::FailedPreconditionError("WARC writer is closed");
    for (WarcRecord& record : records) {
      if (record.record_id.empty()) record.record_id = NewRecordIdLocked();
      record.warcinfo_id = warcinfo_id_;
    }
  }
  for (WarcRecord& record : records) {
    if (record.date == absl::InfinitePast()) record.date = clock_.Now();
  }
  // Index entries are made outside the lock too; each file's name and each record's place are
  // filled in once it is written.
  std::vector<std::optional<CdxjEntry>> entries;
  if (options_.write_index) {
    entries.reserve(records.size());
    for (const WarcRecord& record : records) {
      entries.push_back(EntryForWrittenRecord(record, /*filename=*/""));
    }
  }
  std::unique_ptr<GzipCompressor> compressor = TakeCompressor();
  absl::Status status = WriteCompressed(records, entries, *compressor);
  ReturnCompressor(std::move(compressor));
  return status;
}

namespace {

// The gzip members of some records, one per record, concatenated.
struct Members {
  std::string bytes;
  std::vector<size_t> ends;  // ends[i]: where record i's member ends in `bytes`

  size_t begin(size_t i) const { return i == 0 ? 0 : ends[i - 1]; }
};

// Compresses `records` into `out`; false if compression failed.
bool CompressRecords(std::span<const WarcRecord> records, GzipCompressor& compressor,
                     Members& out) {
  out.bytes.clear();
  out.ends.clear();
  std::string serialized;
  for (const WarcRecord& record : records) {
    serialized.clear();
    AppendSerializedRecord(record, serialized);
    if (!compressor.AppendMember(serialized, out.bytes)) return false;
    out.ends.push_back(out.bytes.size());
  }
  return true;
}

}  // namespace

absl::Status WarcWriter::WriteCompressed(std::span<WarcRecord> records,
                                         std::span<std::optional<CdxjEntry>> entries,
                                         GzipCompressor& compressor) {
  // Compression is the expensive part; do it without holding the lock. The warcinfo id may go
  // stale if the file rotates meanwhile (another thread) or within the batch; the records after
  // a rotation are compressed again, under the lock, in that (rare) case.
  Members members;  // of records[base...]
  size_t base = 0;
  bool compressed = CompressRecords(records, compressor, members);

  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError("WARC writer is closed");
  size_t first = 0;  // records[first...] are still to be written
  while (first < records.size()) {
    // As for single records, a record starts a new file once the current one has reached
    // max_file_bytes: a batch can span files, with one write per file.
    if (fd_ < 0 || file_bytes_ >= options_.max_file_bytes) {
      if (absl::Status s = CloseFileLocked(); !s.ok()) return s;
      if (absl::Status s = OpenNextFileLocked(); !s.ok()) return s;
    }
    if (records[first].warcinfo_id != warcinfo_id_) {
      for (WarcRecord& record : records.subspan(first)) record.warcinfo_id = warcinfo_id_;
      compressed = CompressRecords(records.subspan(first), compressor, members);
      base = first;
    }
    if (!compressed) return absl::InternalError("gzip compression of a WARC record failed");
    // The records that start before the file reaches max_file_bytes (at least the first).
    const size_t from = members.begin(first - base);
    size_t last = first + 1;
    while (last < records.size() &&
           file_bytes_ + (members.begin(last - base) - from) < options_.max_file_bytes) {
      ++last;
    }
    const std::string_view bytes(members.bytes.data() + from, members.begin(last - base) - from);
    const uint64_t at = file_bytes_;
    if (absl::Status s = WriteBytesLocked(bytes); !s.ok()) {
      AbandonFileAfterFailedWriteLocked();
      return s;
    }
    if (index_ != nullptr && !entries.empty()) {
      // Each record's gzip member, as an index read from the file would place it.
      const std::string filename = std::filesystem::path(final_path_).filename().string();
      for (size_t i = first; i < last && index_ != nullptr; ++i) {
        if (!entries[i].has_value()) continue;
        CdxjEntry& entry = *entries[i];
        entry.filename = filename;
        entry.offset = at + (members.begin(i - base) - from);
        entry.length = members.ends[i - base] - members.begin(i - base);
        if (!index_->Add(entry.ToLine()).ok()) {
          index_.reset();  // this file goes without: an indexer reading it makes it
          ++indexes_failed_;
        }
      }
    }
    records_ += last - first;
    first = last;
  }
  return absl::OkStatus();
}

std::unique_ptr<GzipCompressor> WarcWriter::TakeCompressor() {
  {
    absl::MutexLock lock(&compressors_mu_);
    if (!idle_compressors_.empty()) {
      std::unique_ptr<GzipCompressor> compressor = std::move(idle_compressors_.back());
      idle_compressors_.pop_back();
      return compressor;
    }
  }
  return std::make_unique<GzipCompressor>(options_.compression_level);
}

void WarcWriter::ReturnCompressor(std::unique_ptr<GzipCompressor> compressor) {
  absl::MutexLock lock(&compressors_mu_);
  idle_compressors_.push_back(std::move(compressor));
}

absl::Status WarcWriter::Sync() {
  if (!options_.sync) return absl::OkStatus();
  absl::MutexLock sync_lock(&sync_mu_);
  int fd = -1;
  std::string path;
  bool directory = false;
  {
    absl::MutexLock lock(&mu_);
    if (unsynced_ && fd_ >= 0) {
      fd = ::dup(fd_);
      if (fd < 0) return ErrnoStatus("cannot duplicate the descriptor of", open_path_, errno);
      path = open_path_;
    }
    unsynced_ = false;
    directory = directory_unsynced_;
    directory_unsynced_ = false;
  }
  absl::Status status = absl::OkStatus();
  if (fd >= 0) {
    if (::fsync(fd) != 0) status = ErrnoStatus("cannot fsync", path, errno);
    ::close(fd);
  }
  if (status.ok() && directory) {
    const int dir = ::open(options_.directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || ::fsync(dir) != 0) status = ErrnoStatus("cannot fsync", options_.directory, errno);
    if (dir >= 0) ::close(dir);
  }
  if (!status.ok()) {
    // Not durable: the next Sync tries again (and fails the same way unless the cause went).
    absl::MutexLock lock(&mu_);
    unsynced_ = unsynced_ || fd >= 0;
    directory_unsynced_ = directory_unsynced_ || directory;
  }
  return status;
}

absl::Status WarcWriter::Close() {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::OkStatus();
  closed_ = true;
  return CloseFileLocked();
}

std::vector<std::string> WarcWriter::Files() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> files = files_;
  if (fd_ >= 0) files.push_back(open_path_);
  return files;
}

uint64_t WarcWriter::RecordsWritten() const {
  absl::MutexLock lock(&mu_);
  return records_;
}

uint64_t WarcWriter::BytesWritten() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

uint64_t WarcWriter::IndexesFailed() const {
  absl::MutexLock lock(&mu_);
  return indexes_failed_;
}

}  // namespace crawler::warc
