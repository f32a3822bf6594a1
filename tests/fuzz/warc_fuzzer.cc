// libFuzzer target for the WARC reader and verifier (lib/warc): the input is a whole WARC file,
// plain or gzip (the reader decides by its first bytes), held in a memory file so the reader
// opens it by path as `crawler warc verify` does. Must never crash, hang or use memory beyond
// the record limit. Properties checked, abort() on violation:
//   - a record that WarcReader returns begins inside the file (offset() < size);
//   - VerifyWarcFile's verdict is OK only where WarcReader read the file to its end, and it
//     never counts more records than WarcReader returned.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_verifier.h"

namespace {

// Small enough that ResourceExhausted paths are reached by small inputs.
constexpr uint64_t kMaxRecordBytes = 1 << 16;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("warc_fuzzer", 0);
  Check(fd >= 0);
  Check(ftruncate(fd, 0) == 0);
  for (size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    Check(n > 0);
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  uint64_t records = 0;
  bool clean_end = false;
  auto reader = crawler::warc::WarcReader::Open(path, kMaxRecordBytes);
  if (reader.ok()) {
    // Bounded: every record consumes at least one byte of the decompressed stream, and a
    // decompressed stream is bounded by the record limit per record, so cap the loop anyway.
    for (int i = 0; i < 100000; ++i) {
      auto record = (*reader)->Next();
      if (!record.ok()) break;
      if (!record->has_value()) {
        clean_end = true;
        break;
      }
      Check((*reader)->offset() < size);
      (void)(*record)->Field("WARC-Type");
      ++records;
    }
  }
  const crawler::warc::WarcVerifyReport report =
      crawler::warc::VerifyWarcFile(path, kMaxRecordBytes);
  Check(report.records <= records);
  if (report.status.ok()) Check(clean_end);
  return 0;
}
