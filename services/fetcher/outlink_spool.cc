#include "services/fetcher/outlink_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/encoding/varint.h"
#include "services/common/atomic_file.h"

namespace crawler::fetcher {
namespace {

constexpr std::string_view kMagic = "crawler-outlinks 1\n";
constexpr char kExtension[] = ".spool";

absl::Status Errno(const char* what, const std::string& path) {
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

void AppendBytes(std::string_view bytes, std::string& out) {
  encoding::AppendVarint64(bytes.size(), out);
  out.append(bytes);
}

std::string EncodeRecord(const frontier::UrlToAdd& url) {
  std::string body;
  encoding::AppendVarint64(url.depth, body);
  body.push_back(static_cast<char>(url.priority));
  AppendBytes(url.canonical_url, body);
  AppendBytes(url.host_key, body);
  AppendBytes(url.discovered_from, body);
  // A sitemap, or a page a sitemap listed: level and hints follow (records of links end above).
  if (url.sitemap_level != 0 || !url.sitemap.empty()) {
    body.push_back(static_cast<char>(url.sitemap_level));
    const bool has_lastmod = url.sitemap.lastmod != absl::InfinitePast();
    body.push_back(static_cast<char>(has_lastmod ? 1 : 0));
    if (has_lastmod) {
      encoding::AppendVarint64(encoding::ZigZagEncode(absl::ToUnixMicros(url.sitemap.lastmod)),
                               body);
    }
    body.push_back(static_cast<char>(url.sitemap.changefreq));
    encoding::AppendVarint64(encoding::ZigZagEncode(url.sitemap.priority_permille), body);
  }
  std::string record;
  encoding::AppendVarint64(body.size(), record);
  record += body;
  return record;
}

std::optional<std::string_view> ConsumeBytes(std::string_view& in) {
  std::optional<uint64_t> n = encoding::ConsumeVarint64(in);
  if (!n.has_value() || *n > in.size()) return std::nullopt;
  std::string_view bytes = in.substr(0, *n);
  in.remove_prefix(*n);
  return bytes;
}

// The records of a segment's contents, up to the first that does not decode (a torn tail).
std::vector<frontier::UrlToAdd> DecodeSegment(std::string_view data) {
  std::vector<frontier::UrlToAdd> out;
  if (data.substr(0, kMagic.size()) != kMagic) return out;
  data.remove_prefix(kMagic.size());
  while (!data.empty()) {
    std::optional<std::string_view> body = ConsumeBytes(data);
    if (!body.has_value()) break;
    std::string_view in = *body;
    frontier::UrlToAdd url;
    std::optional<uint64_t> depth = encoding::ConsumeVarint64(in);
    if (!depth.has_value() || *depth > UINT32_MAX || in.empty()) break;
    url.depth = static_cast<uint32_t>(*depth);
    url.priority = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    std::optional<std::string_view> canonical = ConsumeBytes(in);
    std::optional<std::string_view> host = ConsumeBytes(in);
    std::optional<std::string_view> from = ConsumeBytes(in);
    if (!canonical || !host || !from) break;
    url.canonical_url = std::string(*canonical);
    url.host_key = std::string(*host);
    url.discovered_from = std::string(*from);
    if (!in.empty()) {
      if (in.size() < 2) break;
      url.sitemap_level = static_cast<uint8_t>(in[0]);
      const bool has_lastmod = in[1] == 1;
      in.remove_prefix(2);
      if (has_lastmod) {
        std::optional<uint64_t> micros = encoding::ConsumeVarint64(in);
        if (!micros.has_value()) break;
        url.sitemap.lastmod = absl::FromUnixMicros(encoding::ZigZagDecode(*micros));
      }
      if (in.empty()) break;
      url.sitemap.changefreq = static_cast<uint8_t>(in.front());
      in.remove_prefix(1);
      std::optional<uint64_t> priority = encoding::ConsumeVarint64(in);
      if (!priority.has_value() || !in.empty()) break;
      url.sitemap.priority_permille = static_cast<int16_t>(encoding::ZigZagDecode(*priority));
    }
    out.push_back(std::move(url));
  }
  return out;
}

}  // namespace

OutlinkSpool::OutlinkSpool(std::string dir, uint64_t max_bytes, uint64_t segment_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes), segment_bytes_(segment_bytes) {}

OutlinkSpool::~OutlinkSpool() {
  if (fd_ >= 0) ::close(fd_);
}

std::string OutlinkSpool::PathOf(uint64_t sequence) const {
  char name[32];
  std::snprintf(name, sizeof(name), "%016" PRIx64, sequence);
  return (std::filesystem::path(dir_) / absl::StrCat(name, kExtension)).string();
}

absl::StatusOr<std::unique_ptr<OutlinkSpool>> OutlinkSpool::Open(const std::string& dir,
                                                                  uint64_t max_bytes,
                                                                  uint64_t segment_bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  std::unique_ptr<OutlinkSpool> spool(
      new OutlinkSpool(dir, max_bytes, std::max<uint64_t>(segment_bytes, kMagic.size() + 1)));
  std::vector<uint64_t> sequences;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != kExtension) continue;
    uint64_t sequence = 0;
    if (std::sscanf(entry.path().stem().c_str(), "%" SCNx64, &sequence) == 1) {
      sequences.push_back(sequence);
    }
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot read ", dir, ": ", ec.message()));
  std::sort(sequences.begin(), sequences.end());
  for (uint64_t sequence : sequences) {
    absl::StatusOr<std::string> data = ReadWholeFile(spool->PathOf(sequence));
    if (!data.ok()) return data.status();
    Segment segment{.sequence = sequence,
                    .bytes = data->size(),
                    .urls = DecodeSegment(*data).size()};
    spool->urls_ += segment.urls;
    spool->bytes_ += segment.bytes;
    spool->segments_.push_back(segment);
  }
  return spool;
}

absl::Status OutlinkSpool::Append(const std::vector<frontier::UrlToAdd>& urls) {
  if (urls.empty()) return absl::OkStatus();
  std::string records;
  for (const frontier::UrlToAdd& url : urls) records += EncodeRecord(url);
  if (bytes_ + records.size() + kMagic.size() > max_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the outlinks kept in ", dir_, " would pass ", max_bytes_, " bytes"));
  }
  if (fd_ >= 0 && segments_.back().bytes + records.size() > segment_bytes_) {
    if (absl::Status s = CloseWriter(); !s.ok()) return s;
  }
  if (fd_ < 0) {
    const uint64_t sequence = segments_.empty() ? 1 : segments_.back().sequence + 1;
    const std::string path = PathOf(sequence);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return Errno("cannot create", path);
    segments_.push_back(Segment{.sequence = sequence});
    records.insert(0, kMagic);
    new_segment_unsynced_ = true;
  }
  Segment& segment = segments_.back();
  size_t written = 0;
  while (written < records.size()) {
    const ssize_t n = ::write(fd_, records.data() + written, records.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const absl::Status error = Errno("cannot write", PathOf(segment.sequence));
      // What was written of this append is a torn tail the reader stops at; nothing more goes
      // into this segment.
      ::close(fd_);
      fd_ = -1;
      segment.bytes += written;
      bytes_ += written;
      return error;
    }
    written += static_cast<size_t>(n);
  }
  segment.bytes += records.size();
  segment.urls += urls.size();
  bytes_ += records.size();
  urls_ += urls.size();
  return absl::OkStatus();
}

absl::Status OutlinkSpool::Sync() {
  if (fd_ >= 0 && ::fdatasync(fd_) != 0) {
    return Errno("cannot sync", PathOf(segments_.back().sequence));
  }
  if (new_segment_unsynced_) {
    const int dir = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return Errno("cannot open", dir_);
    const int synced = ::fsync(dir);
    ::close(dir);
    if (synced != 0) return Errno("cannot sync", dir_);
    new_segment_unsynced_ = false;
  }
  return absl::OkStatus();
}

absl::Status OutlinkSpool::CloseWriter() {
  if (fd_ < 0) return absl::OkStatus();
  const bool synced = ::fdatasync(fd_) == 0;
  const absl::Status error = synced ? absl::OkStatus()
                                    : Errno("cannot sync", PathOf(segments_.back().sequence));
  ::close(fd_);
  fd_ = -1;
  return error;
}

absl::Status OutlinkSpool::LoadOldest() {
  while (!loaded_ && !segments_.empty()) {
    // The reader never shares a segment with the writer: the next append starts a new one.
    if (fd_ >= 0 && segments_.size() == 1) {
      if (absl::Status s = CloseWriter(); !s.ok()) return s;
    }
    const Segment& oldest = segments_.front();
    const std::string path = PathOf(oldest.sequence);
    absl::StatusOr<std::string> data = ReadWholeFile(path);
    if (!data.ok()) {
      urls_ -= oldest.urls;
      bytes_ -= oldest.bytes;
      segments_.pop_front();
      std::error_code ec;
      std::filesystem::rename(path, path + ".bad", ec);
      return absl::DataLossError(
          absl::StrCat("outlinks kept in ", path, " cannot be read: ", data.status().message()));
    }
    std::vector<frontier::UrlToAdd> urls = DecodeSegment(*data);
    reading_.assign(std::make_move_iterator(urls.begin()), std::make_move_iterator(urls.end()));
    loaded_ = true;
    if (reading_.empty()) {
      if (absl::Status s = Consume(0); !s.ok()) return s;  // an empty segment: drop it
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<frontier::UrlToAdd>> OutlinkSpool::Peek(size_t max) {
  if (absl::Status s = LoadOldest(); !s.ok()) return s;
  const size_t n = std::min(max, reading_.size());
  return std::vector<frontier::UrlToAdd>(reading_.begin(), reading_.begin() + n);
}

absl::Status OutlinkSpool::Consume(size_t n) {
  if (!loaded_) return absl::OkStatus();
  n = std::min(n, reading_.size());
  reading_.erase(reading_.begin(), reading_.begin() + n);
  urls_ -= std::min<uint64_t>(urls_, n);
  if (!reading_.empty()) return absl::OkStatus();
  // The whole segment was taken: it goes.
  const Segment done = segments_.front();
  segments_.pop_front();
  loaded_ = false;
  bytes_ -= std::min(bytes_, done.bytes);
  const std::string path = PathOf(done.sequence);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("cannot delete", path);
  return absl::OkStatus();
}

}  // namespace crawler::fetcher
