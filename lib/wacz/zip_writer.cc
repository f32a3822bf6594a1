#include "lib/wacz/zip_writer.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/fingerprint/sha256.h"

namespace crawler::wacz {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
// Version needed to extract: 2.0 (stored entries, directories), 4.5 with ZIP64 fields.
constexpr uint16_t kVersion20 = 20;
constexpr uint16_t kVersion45 = 45;
// Made by: UNIX (upper byte 3), so the external attributes carry permissions.
constexpr uint16_t kMadeByUnix = (3 << 8) | kVersion45;
constexpr uint16_t kFlagUtf8Names = 1 << 11;
constexpr uint32_t kMax32 = 0xFFFFFFFF;
constexpr uint16_t kMax16 = 0xFFFF;
constexpr size_t kChunkBytes = size_t{1} << 20;

void Put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>(v >> 8));
}
void Put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void Put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint32_t Crc(uint32_t crc, std::string_view data) {
  // zlib's length parameter is 32 bits; chunks are far smaller.
  return static_cast<uint32_t>(
      ::crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

// MS-DOS date and time fields (APPNOTE 4.4.6) of `t` in UTC; 1980 is the earliest they hold.
std::pair<uint16_t, uint16_t> DosTimeDate(absl::Time t) {
  const absl::CivilSecond c = absl::ToCivilSecond(t, absl::UTCTimeZone());
  if (c.year() < 1980) return {0, (1 << 5) | 1};  // 1980-01-01 00:00
  const uint16_t time =
      static_cast<uint16_t>((c.hour() << 11) | (c.minute() << 5) | (c.second() / 2));
  const uint16_t date =
      static_cast<uint16_t>(((c.year() - 1980) << 9) | (c.month() << 5) | c.day());
  return {time, date};
}

}  // namespace

ZipWriter::ZipWriter(std::FILE* file, std::string path, const ZipWriterOptions& options)
    : file_(file),
      path_(std::move(path)),
      options_(options),
      dos_time_(DosTimeDate(options.modified).first),
      dos_date_(DosTimeDate(options.modified).second) {}

ZipWriter::~ZipWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::StatusOr<std::unique_ptr<ZipWriter>> ZipWriter::Create(const std::string& path,
                                                             const ZipWriterOptions& options) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<ZipWriter>(new ZipWriter(file, path, options));
}

absl::Status ZipWriter::Write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path_, ": ", std::strerror(errno)));
  }
  offset_ += bytes.size();
  return absl::OkStatus();
}

absl::Status ZipWriter::WriteLocalHeader(const Entry& entry) {
  std::string h;
  Put32(h, kLocalHeaderSignature);
  Put16(h, entry.zip64_sizes ? kVersion45 : kVersion20);
  Put16(h, kFlagUtf8Names);
  Put16(h, 0);  // stored
  Put16(h, dos_time_);
  Put16(h, dos_date_);
  Put32(h, entry.crc);
  Put32(h, entry.zip64_sizes ? kMax32 : static_cast<uint32_t>(entry.size));  // compressed
  Put32(h, entry.zip64_sizes ? kMax32 : static_cast<uint32_t>(entry.size));  // uncompressed
  Put16(h, static_cast<uint16_t>(entry.name.size()));
  Put16(h, entry.zip64_sizes ? 20 : 0);
  h.append(entry.name);
  if (entry.zip64_sizes) {
    Put16(h, kZip64ExtraId);
    Put16(h, 16);
    Put64(h, entry.size);  // uncompressed
    Put64(h, entry.size);  // compressed
  }
  return Write(h);
}

absl::StatusOr<ZipEntryInfo> ZipWriter::AddBytes(std::string_view name, std::string_view data) {
  if (closed_) return absl::FailedPreconditionError("the ZIP file is closed");
  if (name.empty() || name.size() > kMax16) return absl::InvalidArgumentError("bad entry name");
  Entry entry{.name = std::string(name),
              .crc = Crc(0, data),
              .size = data.size(),
              .header_offset = offset_,
              .zip64_sizes = data.size() >= options_.zip64_threshold};
  if (absl::Status s = WriteLocalHeader(entry); !s.ok()) return s;
  if (absl::Status s = Write(data); !s.ok()) return s;
  entries_.push_back(entry);
  return ZipEntryInfo{
      .name = entry.name, .size = entry.size, .sha256 = fingerprint::Sha256Labelled(data)};
}

absl::StatusOr<ZipEntryInfo> ZipWriter::AddFile(std::string_view name, const std::string& source) {
  if (closed_) return absl::FailedPreconditionError("the ZIP file is closed");
  if (name.empty() || name.size() > kMax16) return absl::InvalidArgumentError("bad entry name");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(source.c_str(), "rb"),
                                                     &std::fclose);
  if (in == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open ", source, ": ", std::strerror(errno)));
  }
  std::string chunk(kChunkBytes, '\0');
  auto read_chunk = [&]() -> absl::StatusOr<std::string_view> {
    const size_t n = std::fread(chunk.data(), 1, chunk.size(), in.get());
    if (n == 0 && std::ferror(in.get())) {
      return absl::UnavailableError(
          absl::StrCat("cannot read ", source, ": ", std::strerror(errno)));
    }
    return std::string_view(chunk.data(), n);
  };
  // Pass 1: CRC-32, SHA-256 and size.
  Entry entry{.name = std::string(name), .header_offset = offset_};
  fingerprint::Sha256Hasher sha;
  uint32_t crc = 0;
  while (true) {
    absl::StatusOr<std::string_view> piece = read_chunk();
    if (!piece.ok()) return piece.status();
    if (piece->empty()) break;
    crc = Crc(crc, *piece);
    sha.Update(*piece);
    entry.size += piece->size();
  }
  entry.crc = crc;
  entry.zip64_sizes = entry.size >= options_.zip64_threshold;
  // Pass 2: the copy, checked against pass 1.
  std::rewind(in.get());
  if (absl::Status s = WriteLocalHeader(entry); !s.ok()) return s;
  uint32_t copied_crc = 0;
  uint64_t copied = 0;
  while (copied <= entry.size) {
    absl::StatusOr<std::string_view> piece = read_chunk();
    if (!piece.ok()) return piece.status();
    if (piece->empty()) break;
    copied_crc = Crc(copied_crc, *piece);
    copied += piece->size();
    if (copied > entry.size) break;
    if (absl::Status s = Write(*piece); !s.ok()) return s;
  }
  if (copied != entry.size || copied_crc != entry.crc) {
    return absl::AbortedError(absl::StrCat(source, " changed while it was being packaged"));
  }
  entries_.push_back(entry);
  return ZipEntryInfo{.name = entry.name, .size = entry.size, .sha256 = sha.FinishLabelled()};
}

absl::Status ZipWriter::WriteEnd() {
  const uint64_t directory_offset = offset_;
  bool zip64_end = entries_.size() >= kMax16;
  for (const Entry& e : entries_) {
    const bool zip64_offset = e.header_offset >= options_.zip64_threshold;
    zip64_end = zip64_end || e.zip64_sizes || zip64_offset;
    std::string extra;
    if (e.zip64_sizes || zip64_offset) {
      std::string fields;
      if (e.zip64_sizes) {
        Put64(fields, e.size);  // uncompressed
        Put64(fields, e.size);  // compressed
      }
      if (zip64_offset) Put64(fields, e.header_offset);
      Put16(extra, kZip64ExtraId);
      Put16(extra, static_cast<uint16_t>(fields.size()));
      extra.append(fields);
    }
    std::string h;
    Put32(h, kCentralHeaderSignature);
    Put16(h, kMadeByUnix);
    Put16(h, extra.empty() ? kVersion20 : kVersion45);
    Put16(h, kFlagUtf8Names);
    Put16(h, 0);  // stored
    Put16(h, dos_time_);
    Put16(h, dos_date_);
    Put32(h, e.crc);
    Put32(h, e.zip64_sizes ? kMax32 : static_cast<uint32_t>(e.size));
    Put32(h, e.zip64_sizes ? kMax32 : static_cast<uint32_t>(e.size));
    Put16(h, static_cast<uint16_t>(e.name.size()));
    Put16(h, static_cast<uint16_t>(extra.size()));
    Put16(h, 0);               // comment length
    Put16(h, 0);               // disk number start
    Put16(h, 0);               // internal attributes
    Put32(h, 0100644u << 16);  // external attributes: a regular file, rw-r--r--
    Put32(h, zip64_offset ? kMax32 : static_cast<uint32_t>(e.header_offset));
    h.append(e.name);
    h.append(extra);
    if (absl::Status s = Write(h); !s.ok()) return s;
  }
  const uint64_t directory_size = offset_ - directory_offset;
  zip64_end = zip64_end || directory_offset >= options_.zip64_threshold ||
              directory_size >= options_.zip64_threshold;
  std::string end;
  if (zip64_end) {
    const uint64_t zip64_end_offset = offset_;
    Put32(end, kZip64EndSignature);
    Put64(end, 44);  // size of the rest of this record
    Put16(end, kMadeByUnix);
    Put16(end, kVersion45);
    Put32(end, 0);  // this disk
    Put32(end, 0);  // disk of the central directory
    Put64(end, entries_.size());
    Put64(end, entries_.size());
    Put64(end, directory_size);
    Put64(end, directory_offset);
    Put32(end, kZip64LocatorSignature);
    Put32(end, 0);  // disk of the ZIP64 end record
    Put64(end, zip64_end_offset);
    Put32(end, 1);  // disks
  }
  Put32(end, kEndSignature);
  Put16(end, 0);
  Put16(end, 0);
  const uint16_t count = zip64_end ? kMax16 : static_cast<uint16_t>(entries_.size());
  Put16(end, count);
  Put16(end, count);
  Put32(end, zip64_end ? kMax32 : static_cast<uint32_t>(directory_size));
  Put32(end, zip64_end ? kMax32 : static_cast<uint32_t>(directory_offset));
  Put16(end, 0);  // comment length
  return Write(end);
}

absl::Status ZipWriter::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  absl::Status status = WriteEnd();
  // The package is complete only once it is on disk (the caller renames it then).
  if ((std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) && status.ok()) {
    status =
        absl::UnavailableError(absl::StrCat("cannot write ", path_, ": ", std::strerror(errno)));
  }
  if (std::fclose(file_) != 0 && status.ok()) {
    status =
        absl::UnavailableError(absl::StrCat("cannot close ", path_, ": ", std::strerror(errno)));
  }
  file_ = nullptr;
  return status;
}

}  // namespace crawler::wacz
