#include "services/fetcher/archive_file_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/fingerprint/sha256.h"
#include "lib/warc/cdxj_indexer.h"
#include "services/common/atomic_file.h"

namespace crawler::fetcher {
namespace {

bool IsWarcName(std::string_view name) {
  return name.ends_with(".warc.gz") || name.ends_with(".warc");
}

// Closes a descriptor when it goes.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

int64_t MtimeNs(const struct stat& st) {
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

}  // namespace

bool IsPlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

ArchiveFileStore::ArchiveFileStore(std::string warc_dir) : warc_dir_(std::move(warc_dir)) {}

absl::StatusOr<std::string> ArchiveFileStore::Digest(const std::string& path, const Cached& now) {
  {
    absl::MutexLock lock(&mu_);
    auto it = digests_.find(path);
    if (it != digests_.end() && it->second.size == now.size &&
        it->second.mtime_ns == now.mtime_ns && it->second.inode == now.inode) {
      return it->second.sha256;
    }
  }
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (in.fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  fingerprint::Sha256Hasher hasher;
  std::string buffer(size_t{1} << 20, '\0');
  while (true) {
    const ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    hasher.Update(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  Cached entry = now;
  entry.sha256 = hasher.FinishLabelled();
  absl::MutexLock lock(&mu_);
  digests_[path] = entry;
  return entry.sha256;
}

absl::Status ArchiveFileStore::Warm(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::UnavailableError(absl::StrCat("cannot read ", path));
  }
  return Digest(path, {.size = static_cast<uint64_t>(st.st_size),
                       .mtime_ns = MtimeNs(st),
                       .inode = static_cast<uint64_t>(st.st_ino)})
      .status();
}

absl::StatusOr<ArchiveListing> ArchiveFileStore::List(const std::string& collection) {
  if (!IsPlainName(collection)) {
    return absl::InvalidArgumentError(absl::StrCat("not a collection name: '", collection, "'"));
  }
  const std::filesystem::path dir = std::filesystem::path(warc_dir_) / collection;
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    names.insert(entry.path().filename().string());
  }
  // A collection this fetcher never crawled has no directory: nothing to list.
  ArchiveListing listing;
  for (const std::string& name : names) {
    if (name.ends_with(".open")) {
      listing.in_progress.push_back(name);
      continue;
    }
    const bool warc = IsWarcName(name);
    if (!warc && !name.ends_with(".cdxj")) continue;
    const std::string path = (dir / name).string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const Cached now{.size = static_cast<uint64_t>(st.st_size),
                     .mtime_ns = MtimeNs(st),
                     .inode = static_cast<uint64_t>(st.st_ino)};
    absl::StatusOr<std::string> sha256 = Digest(path, now);
    if (!sha256.ok()) {
      if (::access(path.c_str(), F_OK) != 0) continue;  // removed meanwhile
      return sha256.status();
    }
    listing.files.push_back(
        {.name = name,
         .kind = warc ? ArchiveFileInfo::Kind::kWarc : ArchiveFileInfo::Kind::kCdxj,
         .size = now.size,
         .sha256 = *std::move(sha256),
         .modified = absl::FromUnixNanos(now.mtime_ns)});
    if (warc) {
      const std::string index = std::filesystem::path(warc::CdxjPathFor(name)).string();
      if (names.count(index) == 0) listing.in_progress.push_back(index);
    }
  }
  std::sort(listing.in_progress.begin(), listing.in_progress.end());
  return listing;
}

absl::Status ArchiveFileStore::Read(
    const std::string& collection, const std::string& name, uint64_t offset,
    const std::function<bool(uint64_t offset, std::string_view data)>& sink) {
  if (!IsPlainName(collection)) {
    return absl::InvalidArgumentError(absl::StrCat("not a collection name: '", collection, "'"));
  }
  if (!IsPlainName(name) || !(IsWarcName(name) || name.ends_with(".cdxj"))) {
    return absl::NotFoundError(absl::StrCat("not an archive file: '", name, "'"));
  }
  const std::string path = (std::filesystem::path(warc_dir_) / collection / name).string();
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  struct stat st {};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::NotFoundError(
        absl::StrCat("no finished archive file ", name, " of collection ", collection));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (offset > size) {
    return absl::OutOfRangeError(
        absl::StrCat("offset ", offset, " is past the end of ", name, " (", size, " bytes)"));
  }
  std::string buffer(kChunkBytes, '\0');
  while (offset < size) {
    const ssize_t n = ::pread(in.fd, buffer.data(),
                              static_cast<size_t>(std::min<uint64_t>(kChunkBytes, size - offset)),
                              static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
    }
    if (n == 0) break;  // cut meanwhile; the client's digest check tells
    if (!sink(offset, std::string_view(buffer.data(), static_cast<size_t>(n)))) {
      return absl::CancelledError("the reader went away");
    }
    offset += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ArchiveVolumeId(const std::string& data_dir) {
  const std::filesystem::path path = std::filesystem::path(data_dir) / "archive.volume";
  absl::StatusOr<std::string> kept = ReadWholeFile(path);
  if (kept.ok() && !absl::StripAsciiWhitespace(*kept).empty()) {
    return std::string(absl::StripAsciiWhitespace(*kept));
  }
  std::random_device entropy;
  const std::string id = absl::StrFormat("%08x%08x", entropy(), entropy());
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (absl::Status s = WriteFileAtomically(path, id + "\n"); !s.ok()) return s;
  return id;
}

}  // namespace crawler::fetcher
