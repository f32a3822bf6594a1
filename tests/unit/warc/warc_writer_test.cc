#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"

namespace crawler::warc {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            absl::StrCat("warc_test_", ::testing::UnitTest::GetInstance()->random_seed(), "_",
                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

std::vector<ParsedRecord> ReadAll(const std::string& path, absl::Status* final_status = nullptr) {
  std::vector<ParsedRecord> records;
  absl::StatusOr<std::unique_ptr<WarcReader>> reader = WarcReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return records;
  while (true) {
    absl::StatusOr<std::optional<ParsedRecord>> next = (*reader)->Next();
    if (!next.ok()) {
      if (final_status != nullptr) *final_status = next.status();
      break;
    }
    if (!next->has_value()) break;
    records.push_back(**next);
  }
  return records;
}

WarcRecord Response(std::string uri, std::string body) {
  WarcRecord r;
  r.type = RecordType::kResponse;
  r.target_uri = std::move(uri);
  r.content_type = std::string(kHttpResponseContentType);
  r.payload_digest = fingerprint::Sha1(body).ToWarcString();
  r.block = absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ",
                         body.size(), "\r\n\r\n", body);
  return r;
}

// WARC 1.1 §4 (record layout) and §5 (mandatory fields), read back by an independent parser.
TEST(Warc11_4_FileAndRecordModel, WrittenRecordsReadBackWithMandatoryFields) {
  TempDir dir;
  FakeClock clock;
  WarcWriterOptions options{.directory = dir.str(), .prefix = "t"};
  options.software = "crawler-test";
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer = WarcWriter::Open(options, clock, 42);
  ASSERT_TRUE(writer.ok()) << writer.status();
  absl::StatusOr<std::string> id = (*writer)->Write(Response("http://a.test/", "<p>hello</p>"));
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE((*writer)->Close().ok());

  const std::vector<std::string> files = (*writer)->Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(absl::EndsWith(files[0], ".warc.gz")) << files[0];
  EXPECT_TRUE(fs::exists(files[0]));
  EXPECT_FALSE(fs::exists(files[0] + ".open"));

  const std::vector<ParsedRecord> records = ReadAll(files[0]);
  ASSERT_EQ(records.size(), 2u);
  const ParsedRecord& info = records[0];
  EXPECT_EQ(info.version, "WARC/1.1");
  EXPECT_EQ(info.Field("WARC-Type"), "warcinfo");
  EXPECT_EQ(info.Field("WARC-Date"), "2024-01-01T00:00:00Z");
  EXPECT_TRUE(absl::StrContains(info.block, "software: crawler-test\r\n"));
  EXPECT_EQ(info.Field("WARC-Filename"), fs::path(files[0]).filename().string());

  const ParsedRecord& response = records[1];
  EXPECT_EQ(response.Field("WARC-Type"), "response");
  EXPECT_EQ(response.Field("WARC-Record-ID"), *id);
  EXPECT_EQ(response.Field("WARC-Target-URI"), "http://a.test/");
  EXPECT_EQ(response.Field("WARC-Warcinfo-ID"), info.Field("WARC-Record-ID"));
  EXPECT_EQ(response.Field("Content-Type"), "application/http;msgtype=response");
  EXPECT_EQ(response.Field("Content-Length"), absl::StrCat(response.block.size()));
  EXPECT_EQ(response.Field("WARC-Block-Digest"),
            fingerprint::Sha1(response.block).ToWarcString());
  EXPECT_EQ(response.Field("WARC-Payload-Digest"),
            fingerprint::Sha1("<p>hello</p>").ToWarcString());
}

// WARC 1.1 §5.2: record ids are globally unique URIs; ours are urn:uuid version 4.
TEST(Warc11_5_2_RecordId, UuidV4AndUnique) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str()}, clock, 7);
  ASSERT_TRUE(writer.ok());
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = (*writer)->NewRecordId();
    ASSERT_EQ(id.size(), 47u) << id;  // "<urn:uuid:" + 36 + ">"
    EXPECT_TRUE(absl::StartsWith(id, "<urn:uuid:")) << id;
    EXPECT_EQ(id[24], '4') << id;                                    // version nibble
    EXPECT_TRUE(std::string("89ab").find(id[29]) != std::string::npos) << id;  // variant
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 1000u);
}

// WARC 1.1 Annex C: files are rotated by size; each new file opens with its own warcinfo.
TEST(Warc11_AnnexC_Rotation, RotatesAtSizeAndEachFileHasWarcinfo) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str(), .max_file_bytes = 8192}, clock, 1);
  ASSERT_TRUE(writer.ok());
  // Incompressible-ish bodies so the files really grow.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) {
    std::string body;
    for (int j = 0; j < 200; ++j) body += static_cast<char>('a' + rng() % 26);
    ASSERT_TRUE((*writer)->Write(Response(absl::StrCat("http://a.test/", i), body)).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  const std::vector<std::string> files = (*writer)->Files();
  ASSERT_GT(files.size(), 1u);
  size_t responses = 0;
  for (const std::string& file : files) {
    const std::vector<ParsedRecord> records = ReadAll(file);
    ASSERT_FALSE(records.empty()) << file;
    EXPECT_EQ(records[0].Field("WARC-Type"), "warcinfo") << file;
    for (size_t i = 1; i < records.size(); ++i) {
      EXPECT_EQ(records[i].Field("WARC-Warcinfo-ID"), records[0].Field("WARC-Record-ID"));
      ++responses;
    }
  }
  EXPECT_EQ(responses, 40u);
  EXPECT_EQ((*writer)->RecordsWritten(), 40u + files.size());
}

// WARC 1.1 §6.7: revisit records carry the profile and point at the original.
TEST(Warc11_6_7_Revisit, IdenticalPayloadDigestProfile) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str()}, clock, 1);
  ASSERT_TRUE(writer.ok());
  absl::StatusOr<std::string> original = (*writer)->Write(Response("http://a.test/x", "same"));
  ASSERT_TRUE(original.ok());
  WarcRecord revisit;
  revisit.type = RecordType::kRevisit;
  revisit.target_uri = "http://b.test/y";
  revisit.profile = std::string(kProfileIdenticalPayloadDigest);
  revisit.refers_to = *original;
  revisit.refers_to_target_uri = "http://a.test/x";
  revisit.refers_to_date = FormatWarcDate(clock.Now());
  revisit.payload_digest = fingerprint::Sha1("same").ToWarcString();
  revisit.content_type = std::string(kHttpResponseContentType);
  revisit.block = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n";  // headers only
  ASSERT_TRUE((*writer)->Write(revisit).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::vector<ParsedRecord> records = ReadAll((*writer)->Files()[0]);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].Field("WARC-Type"), "revisit");
  EXPECT_EQ(records[2].Field("WARC-Profile"), kProfileIdenticalPayloadDigest);
  EXPECT_EQ(records[2].Field("WARC-Refers-To"), *original);
  EXPECT_EQ(records[2].Field("WARC-Payload-Digest"), records[1].Field("WARC-Payload-Digest"));
}

// Values from servers must not be able to forge header fields.
TEST(Warc11_4_FileAndRecordModel, NewlinesInValuesCannotInjectFields) {
  WarcRecord r;
  r.type = RecordType::kResponse;
  r.record_id = "<urn:uuid:x>";
  r.date = absl::FromUnixSeconds(0);
  r.target_uri = "http://a.test/\r\nWARC-Type: forged";
  const std::string bytes = SerializeRecord(r);
  EXPECT_FALSE(absl::StrContains(bytes, "\r\nWARC-Type: forged"));
  EXPECT_TRUE(absl::StrContains(bytes, "WARC-Target-URI: http://a.test/  WARC-Type: forged\r\n"));
}

// A writer killed mid-record leaves a ".open" file readable up to its last complete record.
TEST(WarcReader, TruncatedFileYieldsCompleteRecordsThenDataLoss) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str()}, clock, 1);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*writer)->Write(Response(absl::StrCat("http://a.test/", i), "body")).ok());
  }
  const std::string open_file = (*writer)->Files().back();
  ASSERT_TRUE(absl::EndsWith(open_file, ".open"));
  const auto size = fs::file_size(open_file);
  const std::string copy = dir.str() + "/cut.warc.gz";
  fs::copy_file(open_file, copy);
  fs::resize_file(copy, size - 20);  // lose the tail of the last member
  absl::Status final_status;
  const std::vector<ParsedRecord> records = ReadAll(copy, &final_status);
  EXPECT_EQ(records.size(), 3u);  // warcinfo + 2 complete responses
  EXPECT_EQ(final_status.code(), absl::StatusCode::kDataLoss) << final_status;
}

// A writer killed mid-record leaves "<name>.warc.gz.open"; the next Open() cuts it back to its
// complete records and gives it its final name.
TEST(WarcWriter, OpenFinishesFilesOfAKilledWriter) {
  TempDir dir;
  const std::string crashed = dir.str() + "/crashed";
  fs::create_directories(crashed);
  FakeClock clock;
  {
    absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
        WarcWriter::Open({.directory = dir.str() + "/live"}, clock, 1);
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*writer)->Write(Response(absl::StrCat("http://a.test/", i), "body")).ok());
    }
    const std::string open_file = (*writer)->Files().back();
    // What a SIGKILL during the fourth write leaves: three records, then half a member.
    const std::string target = crashed + "/t-20240101000000-00001-1.warc.gz.open";
    fs::copy_file(open_file, target);
    const std::string partial = GzipMember(std::string(500, 'x'), 1);
    std::ofstream(target, std::ios::app) << partial.substr(0, partial.size() / 2);
  }
  std::ofstream(crashed + "/t-20240101000000-00002-1.warc.gz.open").close();  // empty: dropped
  absl::StatusOr<std::unique_ptr<WarcWriter>> reopened =
      WarcWriter::Open({.directory = crashed, .prefix = "t"}, clock, 2);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const std::string finished = crashed + "/t-20240101000000-00001-1.warc.gz";
  EXPECT_TRUE(fs::exists(finished));
  EXPECT_FALSE(fs::exists(finished + ".open"));
  EXPECT_FALSE(fs::exists(crashed + "/t-20240101000000-00002-1.warc.gz"));
  EXPECT_FALSE(fs::exists(crashed + "/t-20240101000000-00002-1.warc.gz.open"));
  absl::Status final_status;
  EXPECT_EQ(ReadAll(finished, &final_status).size(), 4u);  // warcinfo + 3 responses, cleanly
  EXPECT_TRUE(final_status.ok()) << final_status;
  const std::vector<std::string> files = (*reopened)->Files();
  EXPECT_EQ(files.front(), finished);
}

TEST(WarcWriter, RejectsBadOptions) {
  FakeClock clock;
  EXPECT_EQ(WarcWriter::Open({.directory = ""}, clock, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WarcWriter::Open({.directory = "/tmp/x", .compression_level = 0}, clock, 1)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::warc
