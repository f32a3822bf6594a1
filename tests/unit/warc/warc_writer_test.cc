#include "lib/warc/warc_writer.h"

#include <sys/resource.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_record.h"

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

// The ids are the RFC 9562 layout of the writer's random numbers: the same digits, in the same
// places, as "%08x-%04x-%04x-%04x-%012x" of them (a reference formatting, checked against the
// generator the writer is seeded with).
TEST(Warc11_5_2_RecordId, DigitsAreTheRandomBitsInUuidLayout) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str()}, clock, 7);
  ASSERT_TRUE(writer.ok());
  std::mt19937_64 rng(7);
  rng();  // the warcinfo record's id
  rng();
  for (int i = 0; i < 100; ++i) {
    uint64_t hi = rng();
    uint64_t lo = rng();
    hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;
    lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
    EXPECT_EQ((*writer)->NewRecordId(),
              absl::StrFormat("<urn:uuid:%08x-%04x-%04x-%04x-%012x>", hi >> 32, (hi >> 16) & 0xFFFF,
                              hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull));
  }
}

// WARC 1.1 §5.4: WARC-Date is "YYYY-MM-DDThh:mm:ssZ" (W3C-ISO8601, UTC); FormatWarcDate's own
// digit formatting agrees with absl's strftime-like formatting, edges of its range included.
TEST(Warc11_5_4_Date, FormatsLikeStrftimeInUtc) {
  const std::string format = "%Y-%m-%dT%H:%M:%SZ";
  std::vector<absl::Time> times = {
      absl::UnixEpoch(),
      absl::FromUnixSeconds(-1),
      absl::FromUnixSeconds(1714567890),
      absl::FromUnixMillis(1714567890999),
      absl::FromCivil(absl::CivilSecond(999, 12, 31, 23, 59, 59), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(1000, 1, 1, 0, 0, 0), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(9999, 12, 31, 23, 59, 59), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(10000, 1, 1, 0, 0, 0), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(-5, 6, 7, 8, 9, 10), absl::UTCTimeZone()),
      absl::InfinitePast(),
      absl::InfiniteFuture(),
  };
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    times.push_back(
        absl::FromUnixSeconds(static_cast<int64_t>(rng() % 8'000'000'000) - 2'000'000'000));
  }
  for (const absl::Time t : times) {
    EXPECT_EQ(FormatWarcDate(t), absl::FormatTime(format, t, absl::UTCTimeZone())) << t;
  }
}

// WriteAll writes the same bytes as a Write of each record, in one go.
TEST(WarcWriter, WriteAllEqualsWriteOfEachRecord) {
  TempDir dir;
  FakeClock clock;
  auto records = [] {
    std::vector<WarcRecord> out;
    for (int i = 0; i < 5; ++i) {
      out.push_back(Response(absl::StrCat("http://a.test/", i), std::string(100 * i, 'x')));
    }
    out[2].record_id = "<urn:uuid:0b5e4f1c-0000-4000-8000-000000000002>";
    out[3].date = absl::FromUnixSeconds(1714567890);
    return out;
  };
  absl::StatusOr<std::unique_ptr<WarcWriter>> one_by_one =
      WarcWriter::Open({.directory = dir.str() + "/a"}, clock, 5);
  absl::StatusOr<std::unique_ptr<WarcWriter>> batched =
      WarcWriter::Open({.directory = dir.str() + "/b"}, clock, 5);
  ASSERT_TRUE(one_by_one.ok() && batched.ok());
  for (WarcRecord& r : records()) ASSERT_TRUE((*one_by_one)->Write(std::move(r)).ok());
  ASSERT_TRUE((*batched)->WriteAll(records()).ok());
  ASSERT_TRUE((*batched)->WriteAll({}).ok());
  EXPECT_EQ((*batched)->RecordsWritten(), 6u);  // warcinfo + 5
  ASSERT_TRUE((*one_by_one)->Close().ok());
  ASSERT_TRUE((*batched)->Close().ok());
  auto contents = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = contents((*one_by_one)->Files().at(0));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, contents((*batched)->Files().at(0)));
  const std::vector<ParsedRecord> read = ReadAll((*batched)->Files().at(0));
  ASSERT_EQ(read.size(), 6u);
  EXPECT_EQ(read[3].Field("WARC-Record-ID"), "<urn:uuid:0b5e4f1c-0000-4000-8000-000000000002>");
  EXPECT_EQ(read[4].Field("WARC-Date"), "2024-05-01T12:51:30Z");
  EXPECT_EQ((*batched)->WriteAll(records()).code(), absl::StatusCode::kFailedPrecondition);
}

// A batch rotates where single writes would: before the first record that would start at or
// after max_file_bytes, so batches span files, and the files are byte for byte those of one
// Write per record (each opening with its warcinfo, which its records name). The records have
// their ids beforehand: a writer draws the ids a batch lacks before it writes any of them, so
// with a rotation inside the batch the random ids would come in another order.
TEST(Warc11_AnnexC_Rotation, BatchesRotateWhereSingleWritesDo) {
  TempDir dir;
  FakeClock clock;
  auto records = [] {
    std::mt19937_64 rng(3);
    std::vector<WarcRecord> out;
    for (int i = 0; i < 40; ++i) {
      std::string body;
      for (int j = 0; j < 400; ++j) body += static_cast<char>('a' + rng() % 26);
      out.push_back(Response(absl::StrCat("http://a.test/", i), body));
      out.back().record_id = absl::StrFormat("<urn:uuid:0b5e4f1c-0000-4000-8000-%012d>", i);
    }
    return out;
  };
  const WarcWriterOptions options{.directory = dir.str() + "/single", .max_file_bytes = 8192};
  absl::StatusOr<std::unique_ptr<WarcWriter>> single = WarcWriter::Open(options, clock, 1);
  WarcWriterOptions batched_options = options;
  batched_options.directory = dir.str() + "/batched";
  absl::StatusOr<std::unique_ptr<WarcWriter>> batched = WarcWriter::Open(batched_options, clock, 1);
  ASSERT_TRUE(single.ok() && batched.ok());
  for (WarcRecord& r : records()) ASSERT_TRUE((*single)->Write(std::move(r)).ok());
  std::vector<WarcRecord> all = records();
  for (size_t i = 0; i < all.size(); i += 8) {
    ASSERT_TRUE(
        (*batched)
            ->WriteAll(std::vector<WarcRecord>(std::make_move_iterator(all.begin() + i),
                                               std::make_move_iterator(all.begin() + i + 8)))
            .ok());
  }
  ASSERT_TRUE((*single)->Close().ok());
  ASSERT_TRUE((*batched)->Close().ok());
  const std::vector<std::string> files = (*batched)->Files();
  ASSERT_GT(files.size(), 2u);
  ASSERT_EQ(files.size(), (*single)->Files().size());
  auto contents = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  size_t responses = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    EXPECT_EQ(contents(files[f]), contents((*single)->Files()[f])) << files[f];
    const std::vector<ParsedRecord> read = ReadAll(files[f]);
    ASSERT_FALSE(read.empty()) << files[f];
    EXPECT_EQ(read[0].Field("WARC-Type"), "warcinfo") << files[f];
    for (size_t i = 1; i < read.size(); ++i) {
      EXPECT_EQ(read[i].Field("WARC-Warcinfo-ID"), read[0].Field("WARC-Record-ID"));
      ++responses;
    }
  }
  EXPECT_EQ(responses, 40u);
  EXPECT_EQ((*batched)->RecordsWritten(), 40u + files.size());
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
  uint64_t partial_bytes = 0;
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
    partial_bytes = partial.size() / 2;
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
  // The torn record is reported: where it started and how much was cut.
  const std::vector<WarcWriter::Recovered>& recovered = (*reopened)->recovered();
  ASSERT_EQ(recovered.size(), 2u);
  EXPECT_EQ(recovered[0].path, finished);
  EXPECT_EQ(recovered[0].kept_bytes, fs::file_size(finished));
  EXPECT_EQ(recovered[0].cut_bytes, partial_bytes);
  EXPECT_NE(recovered[0].Describe().find(absl::StrCat("torn record at offset ",
                                                      fs::file_size(finished))),
            std::string::npos)
      << recovered[0].Describe();
  EXPECT_EQ(recovered[1].path, "");  // the empty file, removed
  EXPECT_NE(recovered[1].Describe().find("no complete record"), std::string::npos);
}

std::string Incompressible(size_t n) {
  std::mt19937_64 rng(7);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Every *.warc.gz of `dir` read to its end: the number of records of each type, and no file
// left ".open" or damaged.
std::map<std::string, size_t> RecordsByType(const std::string& dir) {
  std::map<std::string, size_t> by_type;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    EXPECT_TRUE(absl::EndsWith(path, ".warc.gz")) << path;
    absl::Status final_status;
    for (const ParsedRecord& record : ReadAll(path, &final_status)) {
      ++by_type[std::string(record.Field("WARC-Type"))];
    }
    EXPECT_TRUE(final_status.ok()) << path << ": " << final_status;
  }
  return by_type;
}

// Two writers of one prefix in one directory at once (two crawls sharing a WARC directory): the
// second one's start-up recovery must leave the first one's open file alone, and their names
// must not collide (same pid, same second here).
TEST(WarcWriter, TwoLiveWritersShareADirectory) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> first =
      WarcWriter::Open({.directory = dir.str(), .prefix = "t"}, clock, 1);
  ASSERT_TRUE(first.ok()) << first.status();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*first)->Write(Response(absl::StrCat("http://a.test/", i), "a")).ok());
  }
  absl::StatusOr<std::unique_ptr<WarcWriter>> second =
      WarcWriter::Open({.directory = dir.str(), .prefix = "t"}, clock, 2);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->Files().size(), 1u);  // recovered nothing of the first
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*second)->Write(Response(absl::StrCat("http://b.test/", i), "b")).ok());
    ASSERT_TRUE((*first)->Write(Response(absl::StrCat("http://a.test/", 3 + i), "a")).ok());
  }
  ASSERT_TRUE((*first)->Close().ok());
  ASSERT_TRUE((*second)->Close().ok());
  ASSERT_EQ((*first)->Files().size(), 1u);
  ASSERT_EQ((*second)->Files().size(), 1u);
  EXPECT_NE((*first)->Files()[0], (*second)->Files()[0]);
  EXPECT_EQ(ReadAll((*first)->Files()[0]).size(), 7u);   // warcinfo + 6
  EXPECT_EQ(ReadAll((*second)->Files()[0]).size(), 4u);  // warcinfo + 3
  const std::map<std::string, size_t> by_type = RecordsByType(dir.str());
  EXPECT_EQ(by_type.at("response"), 9u);
  EXPECT_EQ(by_type.at("warcinfo"), 2u);
}

// The same, racing: one writer rotates every few records in a thread while writers of the same
// prefix keep opening (each running start-up recovery), writing and closing.
TEST(WarcWriter, RecoveryRacingALiveWriterLosesNothing) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> busy = WarcWriter::Open(
      {.directory = dir.str(), .prefix = "t", .max_file_bytes = 4096}, clock, 1);
  ASSERT_TRUE(busy.ok()) << busy.status();
  constexpr int kBusyRecords = 400;
  constexpr int kShortLived = 40;
  std::atomic<int> busy_failures{0};
  std::thread writer([&] {
    for (int i = 0; i < kBusyRecords; ++i) {
      if (!(*busy)->Write(Response(absl::StrCat("http://a.test/", i), Incompressible(300))).ok()) {
        ++busy_failures;
      }
    }
    if (!(*busy)->Close().ok()) ++busy_failures;
  });
  int short_lived_failures = 0;
  for (int i = 0; i < kShortLived; ++i) {
    absl::StatusOr<std::unique_ptr<WarcWriter>> other = WarcWriter::Open(
        {.directory = dir.str(), .prefix = "t", .max_file_bytes = 4096}, clock, 100 + i);
    if (!other.ok() || !(*other)->Write(Response(absl::StrCat("http://b.test/", i), "b")).ok() ||
        !(*other)->Close().ok()) {
      ++short_lived_failures;
    }
  }
  writer.join();
  EXPECT_EQ(busy_failures.load(), 0);
  EXPECT_EQ(short_lived_failures, 0);
  EXPECT_EQ(RecordsByType(dir.str()).at("response"), size_t{kBusyRecords + kShortLived});
}

// Start-up recovery finishes only its own prefix's files: not those of another prefix, nor of
// a prefix that merely begins with its own ("t-p1" for "t").
TEST(WarcWriter, RecoveryLeavesOtherPrefixesAlone) {
  TempDir dir;
  FakeClock clock;
  std::string member;
  {
    absl::StatusOr<std::unique_ptr<WarcWriter>> source =
        WarcWriter::Open({.directory = dir.str() + "/src"}, clock, 1);
    ASSERT_TRUE(source.ok());
    ASSERT_TRUE((*source)->Close().ok());
    std::ifstream in((*source)->Files()[0], std::ios::binary);
    member.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string shared = dir.str() + "/shared";
  fs::create_directories(shared);
  for (const char* name : {"/other-20240101000000-00001-1.warc.gz.open",
                           "/t-p1-20240101000000-00001-1.warc.gz.open",
                           "/t-20240101000000-00001-1.warc.gz.open"}) {
    std::ofstream(shared + name, std::ios::binary) << member;
  }
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = shared, .prefix = "t"}, clock, 2);
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_TRUE(fs::exists(shared + "/other-20240101000000-00001-1.warc.gz.open"));
  EXPECT_TRUE(fs::exists(shared + "/t-p1-20240101000000-00001-1.warc.gz.open"));
  EXPECT_TRUE(fs::exists(shared + "/t-20240101000000-00001-1.warc.gz"));
  EXPECT_FALSE(fs::exists(shared + "/t-20240101000000-00001-1.warc.gz.open"));
}

// Lets this process's files grow only to `max_bytes` (RLIMIT_FSIZE: a write past it fails with
// EFBIG, as on a full disk) until destroyed. SIGXFSZ is ignored meanwhile, or it would kill us.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(uint64_t max_bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = static_cast<rlim_t>(max_bytes);
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

// A write that fails part-way (disk full) must not leave part of a member in the file: every
// file reads cleanly to its end, and writing goes on in a new file once there is room again.
TEST(WarcWriter, AFailedWriteLeavesEveryFileReadableToItsEnd) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str()}, clock, 1);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Write(Response("http://a.test/0", "zero")).ok());
  const std::string first = (*writer)->Files().back();
  {
    FileSizeLimit limit(fs::file_size(first) + 1000);  // part of the next record fits
    absl::StatusOr<std::string> failed =
        (*writer)->Write(Response("http://a.test/big", Incompressible(20000)));
    EXPECT_FALSE(failed.ok());
    EXPECT_TRUE(absl::StrContains(failed.status().message(), "cannot write")) << failed.status();
  }
  ASSERT_TRUE((*writer)->Write(Response("http://a.test/1", "one")).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  size_t records = 0;
  for (const std::string& file : (*writer)->Files()) {
    absl::Status final_status;
    records += ReadAll(file, &final_status).size();
    EXPECT_TRUE(final_status.ok()) << file << ": " << final_status;
  }
  EXPECT_EQ(records, 4u);  // warcinfo + a.test/0, then warcinfo + a.test/1 in a new file
  EXPECT_EQ((*writer)->Files().size(), 2u);
}

// With no room even for a new file's warcinfo, no file is left behind that starts with part of
// one; the next write, with room, starts a complete file.
TEST(WarcWriter, AFileWhoseWarcinfoCannotBeWrittenIsDropped) {
  TempDir dir;
  FakeClock clock;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open({.directory = dir.str(), .max_file_bytes = 4096}, clock, 1);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Write(Response("http://a.test/0", Incompressible(5000))).ok());
  {
    FileSizeLimit limit(100);  // the next file (rotation) cannot take its warcinfo
    EXPECT_FALSE((*writer)->Write(Response("http://a.test/1", "one")).ok());
  }
  ASSERT_TRUE((*writer)->Write(Response("http://a.test/2", "two")).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  size_t files_on_disk = 0;
  for (const auto& entry : fs::directory_iterator(dir.str())) {
    ++files_on_disk;
    absl::Status final_status;
    EXPECT_FALSE(ReadAll(entry.path().string(), &final_status).empty()) << entry.path();
    EXPECT_TRUE(final_status.ok()) << entry.path() << ": " << final_status;
  }
  EXPECT_EQ(files_on_disk, 2u);
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
