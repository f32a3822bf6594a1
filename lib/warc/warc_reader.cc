#include "lib/warc/warc_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/encoding/absl_view.h"

namespace crawler::warc {
namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr size_t kMaxHeaderBytes = 1 << 20;  // a WARC header beyond 1 MiB is not a header

}  // namespace

std::string ParsedRecord::Field(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (absl::EqualsIgnoreCase(encoding::AsAbsl(key), encoding::AsAbsl(name))) return value;
  }
  return "";
}

struct WarcReader::Inflater {
  z_stream zs{};
  bool ready = false;
  ~Inflater() {
    if (ready) inflateEnd(&zs);
  }
};

WarcReader::WarcReader(std::FILE* file, uint64_t max_record_bytes)
    : file_(file), max_record_bytes_(max_record_bytes) {}

WarcReader::~WarcReader() { std::fclose(file_); }

absl::StatusOr<std::unique_ptr<WarcReader>> WarcReader::Open(const std::string& path,
                                                             uint64_t max_record_bytes,
                                                             uint64_t start_offset) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<WarcReader> reader(new WarcReader(file, max_record_bytes));
  const int first = std::fgetc(file);
  const int second = std::fgetc(file);
  const bool gzip = first == 0x1f && second == 0x8b;
  if (std::fseek(file, static_cast<long>(start_offset), SEEK_SET) != 0) {
    return absl::DataLossError(absl::StrCat("cannot seek to offset ", start_offset));
  }
  reader->offset_ = reader->member_offset_ = start_offset;
  // Plain: decompressed and file positions are the same, and offsets count from the file start.
  if (!gzip) reader->erased_ = start_offset;
  if (gzip && start_offset > 0) {
    const int a = std::fgetc(file);
    const int b = std::fgetc(file);
    std::fseek(file, static_cast<long>(start_offset), SEEK_SET);
    if (a != 0x1f || b != 0x8b) {
      return absl::DataLossError(absl::StrCat("no gzip member begins at offset ", start_offset));
    }
  }
  if (gzip) {
    reader->inflater_ = std::make_unique<Inflater>();
    // 15 + 32: accept the gzip wrapper (auto-detected); members are restarted in Fill().
    if (inflateInit2(&reader->inflater_->zs, 15 + 32) != Z_OK) {
      return absl::InternalError("inflateInit2 failed");
    }
    reader->inflater_->ready = true;
  }
  return reader;
}

absl::StatusOr<bool> WarcReader::Fill() {
  if (eof_) return false;
  char in[kChunk];
  if (inflater_ == nullptr) {
    const size_t n = std::fread(in, 1, sizeof in, file_);
    if (n == 0) {
      eof_ = true;
      return false;
    }
    buffer_.append(in, n);
    return true;
  }
  z_stream& zs = inflater_->zs;
  const size_t before = buffer_.size();
  long in_offset = 0;  // of in[0] in the file
  size_t in_size = 0;
  while (buffer_.size() == before) {
    if (zs.avail_in == 0) {
      // zlib keeps pointing into `in` between calls only within this loop; unconsumed input is
      // re-read by seeking back (see below), so each call starts with an empty input buffer.
      in_offset = std::ftell(file_);
      in_size = std::fread(in, 1, sizeof in, file_);
      if (in_size == 0) {
        eof_ = true;
        if (zs.total_in > 0) {  // part of a member was read, and its end never came
          offset_ = member_offset_;
          return absl::DataLossError("file ends inside a gzip member (truncated)");
        }
        return false;
      }
      zs.next_in = reinterpret_cast<Bytef*>(in);
      zs.avail_in = static_cast<uInt>(in_size);
    }
    char out[kChunk];
    zs.next_out = reinterpret_cast<Bytef*>(out);
    zs.avail_out = sizeof out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    // One inflate call stops at the end of a member: its output is all of one member.
    if (sizeof out > zs.avail_out &&
        (member_marks_.empty() || member_marks_.back().second != member_offset_)) {
      member_marks_.emplace_back(erased_ + buffer_.size(), member_offset_);
    }
    buffer_.append(out, sizeof out - zs.avail_out);
    if (rc == Z_STREAM_END) {
      // End of one gzip member: the next one (the next record) follows.
      member_offset_ = static_cast<uint64_t>(in_offset) + (in_size - zs.avail_in);
      inflateReset(&zs);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      offset_ = member_offset_;
      return absl::DataLossError(absl::StrCat("corrupt gzip data: ", zs.msg ? zs.msg : "?"));
    }
  }
  // Give back the unconsumed input so the next call can re-read it into its own buffer.
  if (zs.avail_in > 0) {
    std::fseek(file_, -static_cast<long>(zs.avail_in), SEEK_CUR);
    zs.avail_in = 0;
  }
  return true;
}

void WarcReader::Erase(size_t n) {
  buffer_.erase(0, n);
  erased_ += n;
}

void WarcReader::NoteRecordStart() {
  if (inflater_ == nullptr) {
    offset_ = erased_;
    return;
  }
  // The member of the first byte still buffered: the last mark at or before it.
  while (member_marks_.size() > 1 && member_marks_[1].first <= erased_) member_marks_.pop_front();
  offset_ = member_marks_.empty() ? member_offset_ : member_marks_.front().second;
}

absl::StatusOr<std::optional<ParsedRecord>> WarcReader::Next() {
  // Drop what earlier records consumed.
  Erase(consumed_);
  consumed_ = 0;

  // Skip blank lines between records (tolerates writers that pad differently).
  size_t header_end;
  while (true) {
    size_t start = 0;
    while (start < buffer_.size() && (buffer_[start] == '\r' || buffer_[start] == '\n')) ++start;
    Erase(start);
    if (!buffer_.empty()) NoteRecordStart();
    header_end = buffer_.find("\r\n\r\n");
    if (header_end != std::string::npos) break;
    if (buffer_.size() > kMaxHeaderBytes) return absl::DataLossError("WARC header too long");
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (!*more) {
      if (buffer_.empty()) return std::nullopt;
      return absl::DataLossError("truncated WARC header at end of file");
    }
  }

  ParsedRecord record;
  absl::string_view header(buffer_.data(), header_end);
  size_t line_end = header.find("\r\n");
  record.version = std::string(header.substr(0, line_end));
  if (!absl::StartsWith(record.version, "WARC/")) {
    return absl::DataLossError(absl::StrCat("not a WARC record: ", record.version.substr(0, 40)));
  }
  uint64_t content_length = 0;
  bool have_length = false;
  while (line_end != absl::string_view::npos && line_end < header.size()) {
    const size_t next = header.find("\r\n", line_end + 2);
    absl::string_view line =
        header.substr(line_end + 2, next == absl::string_view::npos ? absl::string_view::npos
                                                                    : next - line_end - 2);
    line_end = next;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    std::string name(absl::StripAsciiWhitespace(line.substr(0, colon)));
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (absl::EqualsIgnoreCase(name, "Content-Length")) {
      have_length = absl::SimpleAtoi(value, &content_length);
    }
    record.fields.emplace_back(std::move(name), std::move(value));
  }
  if (!have_length) return absl::DataLossError("WARC record without a valid Content-Length");
  if (content_length > max_record_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("WARC record of ", content_length, " bytes exceeds the limit"));
  }
  const size_t block_begin = header_end + 4;
  while (buffer_.size() < block_begin + content_length) {
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (!*more) return absl::DataLossError("truncated WARC block at end of file");
  }
  record.block = buffer_.substr(block_begin, content_length);
  consumed_ = block_begin + content_length;
  return record;
}

}  // namespace crawler::warc
