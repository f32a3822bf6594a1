// VerifyWarcFile (warc_verifier.h): a file written by WarcWriter is intact, and each kind of
// damage -- a cut, a flipped byte, a digest that does not match -- is found, at the offset of
// the record it hits.
#include "lib/warc/warc_verifier.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <zlib.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/warc/gzip_member.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"

namespace crawler::warc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class WarcVerifierTest : public ::testing::Test {
 protected:
  WarcVerifierTest()
      : dir_(fs::temp_directory_path() /
             absl::StrCat("warc_verifier_test_", ::getpid(), "_",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~WarcVerifierTest() override { fs::remove_all(dir_); }

  static WarcRecord Response(const std::string& uri, const std::string& head,
                             const std::string& body, const std::string& payload) {
    WarcRecord r;
    r.type = RecordType::kResponse;
    r.target_uri = uri;
    r.content_type = std::string(kHttpResponseContentType);
    r.payload_digest = fingerprint::Sha1(payload).ToWarcString();
    r.block = head + body;
    return r;
  }

  // A file of the crawler's writer: warcinfo + `pages` responses (+ one chunked response).
  std::string WriteGoodFile(int pages) {
    FakeClock clock;
    absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
        WarcWriter::Open({.directory = (dir_ / "w").string(), .prefix = "v"}, clock, 1);
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (int i = 0; i < pages; ++i) {
      const std::string body = absl::StrCat("<p>page ", i, "</p>");
      EXPECT_TRUE((*writer)
                      ->Write(Response(absl::StrCat("http://a.test/", i),
                                       absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ",
                                                    body.size(), "\r\n\r\n"),
                                       body, body))
                      .ok());
    }
    // Chunked: the payload digest is of the dechunked entity body (WARC 1.1 §5.9).
    EXPECT_TRUE((*writer)
                    ->Write(Response("http://a.test/chunked",
                                     "HTTP/1.1 100 Continue\r\n\r\n"
                                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                                     "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"))
                    .ok());
    EXPECT_TRUE((*writer)->Close().ok());
    return (*writer)->Files().back();
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The decompressed content of every member, or "" if zlib finds an error.
  static std::string Inflate(const std::string& gz) {
    std::string out;
    z_stream zs{};
    inflateInit2(&zs, 15 + 16);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    zs.avail_in = static_cast<uInt>(gz.size());
    char buffer[4096];
    while (zs.avail_in > 0) {
      zs.next_out = reinterpret_cast<Bytef*>(buffer);
      zs.avail_out = sizeof buffer;
      const int rc = inflate(&zs, Z_NO_FLUSH);
      out.append(buffer, sizeof buffer - zs.avail_out);
      if (rc == Z_STREAM_END) {
        inflateReset(&zs);
      } else if (rc != Z_OK) {
        out.clear();
        break;
      }
    }
    inflateEnd(&zs);
    return out;
  }
  std::string WriteFile(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

// WARC 1.1 §5.8, §5.9: every digest the writer records matches what a reader computes.
TEST_F(WarcVerifierTest, Warc_5_8_5_9_AFileOfTheWriterIsIntact) {
  const WarcVerifyReport report = VerifyWarcFile(WriteGoodFile(5));
  EXPECT_TRUE(report.status.ok()) << report.status << " at " << report.bad_offset;
  EXPECT_EQ(report.records, 7u);           // warcinfo + 5 + chunked
  EXPECT_EQ(report.payload_digests, 6u);   // the responses
  EXPECT_GE(report.block_digests, 6u);
  EXPECT_EQ(report.unchecked_digests, 0u);
}

TEST_F(WarcVerifierTest, ATruncatedFileIsDamagedAtItsLastRecord) {
  const std::string good = Read(WriteGoodFile(5));
  // Where each member begins: a member ends where the next "\x1f\x8b\x08" begins (a valid
  // start only at member boundaries for these small records; checked by the good read above).
  const size_t last_member = good.rfind("\x1f\x8b\x08");
  ASSERT_NE(last_member, std::string::npos);
  for (const size_t cut : {good.size() - 1, good.size() - 8, last_member + 20}) {
    SCOPED_TRACE(cut);
    const WarcVerifyReport report = VerifyWarcFile(WriteFile("cut.warc.gz", good.substr(0, cut)));
    EXPECT_TRUE(absl::IsDataLoss(report.status)) << report.status;
    EXPECT_EQ(report.bad_offset, last_member);
    EXPECT_EQ(report.records, 6u);  // all but the last
  }
  // Cut at a member boundary: what is left is intact (fewer records).
  const WarcVerifyReport whole_records =
      VerifyWarcFile(WriteFile("cut.warc.gz", good.substr(0, last_member)));
  EXPECT_TRUE(whole_records.status.ok()) << whole_records.status;
  EXPECT_EQ(whole_records.records, 6u);
}

TEST_F(WarcVerifierTest, AFlippedByteIsFound) {
  const std::string good = Read(WriteGoodFile(5));
  std::vector<size_t> members;  // where each begins
  for (size_t at = 0; (at = good.find("\x1f\x8b\x08", at)) != std::string::npos; ++at) {
    members.push_back(at);
  }
  ASSERT_EQ(members.size(), 7u);
  // Bytes of the file flipped in turn (every third, and all of each member's trailer) are
  // found -- but the gzip header's MTIME, XFL and OS bytes (RFC 1952 §2.3), which nothing checks
  // and which change no content.
  for (size_t i = 0; i < good.size(); ++i) {
    const size_t next = std::upper_bound(members.begin(), members.end(), i) - members.begin();
    const size_t member = members[next - 1];
    const size_t member_end = next < members.size() ? members[next] : good.size();
    if (i % 3 != 0 && i + 8 < member_end) continue;
    if (i - member >= 4 && i - member <= 9) continue;
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    const WarcVerifyReport report = VerifyWarcFile(WriteFile("flipped.warc.gz", bad));
    // A flip in the padding bits after a deflate stream's last block changes nothing.
    if (report.status.ok() && Inflate(bad) == Inflate(good)) continue;
    ASSERT_FALSE(report.status.ok()) << "byte " << i;
    // The damage is reported at the start of the member holding the flipped byte.
    EXPECT_EQ(report.bad_offset, member) << "byte " << i << ": " << report.status;
  }
}

TEST_F(WarcVerifierTest, Warc_5_9_APayloadDigestThatDoesNotMatchIsDamage) {
  WarcRecord r = Response("http://a.test/", "HTTP/1.1 200 OK\r\n\r\n", "real", "forged");
  const std::string info = SerializeRecord(WarcRecord{.type = RecordType::kWarcinfo});
  const std::string first = GzipMember(info, 1);
  const std::string path = WriteFile("digest.warc.gz", first + GzipMember(SerializeRecord(r), 1));
  const WarcVerifyReport report = VerifyWarcFile(path);
  EXPECT_TRUE(absl::IsDataLoss(report.status));
  EXPECT_THAT(std::string(report.status.message()), HasSubstr("WARC-Payload-Digest mismatch"));
  EXPECT_EQ(report.bad_offset, first.size());
  EXPECT_EQ(report.records, 1u);
}

TEST_F(WarcVerifierTest, Warc_5_8_ABlockDigestThatDoesNotMatchIsDamageInPlainFilesToo) {
  WarcRecord r = Response("http://a.test/", "HTTP/1.1 200 OK\r\n\r\n", "body", "body");
  std::string record = SerializeRecord(r);
  const size_t body = record.find("\r\n\r\nbody");
  ASSERT_NE(body, std::string::npos);
  record[body + 4] = 'B';  // the block changes after its digest was taken
  const std::string info = SerializeRecord(WarcRecord{.type = RecordType::kWarcinfo});
  const WarcVerifyReport report = VerifyWarcFile(WriteFile("plain.warc", info + record));
  EXPECT_TRUE(absl::IsDataLoss(report.status));
  EXPECT_THAT(std::string(report.status.message()), HasSubstr("WARC-Block-Digest mismatch"));
  EXPECT_EQ(report.bad_offset, info.size());
}

TEST_F(WarcVerifierTest, OtherAlgorithmsAreCountedNotChecked) {
  WarcRecord r;
  r.type = RecordType::kResource;
  r.target_uri = "http://a.test/r";
  r.content_type = "text/plain";
  r.payload_digest = "sha256:0000";
  r.block = "resource";
  const WarcVerifyReport report =
      VerifyWarcFile(WriteFile("other.warc.gz", GzipMember(SerializeRecord(r), 1)));
  EXPECT_TRUE(report.status.ok()) << report.status;
  EXPECT_EQ(report.unchecked_digests, 1u);
}

TEST_F(WarcVerifierTest, AMissingFileIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(VerifyWarcFile((dir_ / "none.warc.gz").string()).status));
}

}  // namespace
}  // namespace crawler::warc
