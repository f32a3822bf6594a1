// CDXJ indexing (surt.h, cdxj.h, cdxj_indexer.h, cdxj_verifier.h, external_sorter.h): keys as
// warcio.js computes them, lines as it writes them, the records it indexes, offsets and lengths
// of gzip members, the inputs that cannot be indexed, and an index checked against its WARC.
#include "lib/warc/cdxj.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/warc/cdxj_verifier.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/gzip_member.h"
#include "lib/warc/surt.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"

namespace crawler::warc {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// warcio.js 2.4.11's getSurt on the same URLs (node -e 'import("warcio").then(w =>
// console.log(w.getSurt(URL)))'): the key ReplayWeb.page looks a URL up by.
TEST(SurtKeyTest, AgreesWithWarcioJs) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"http://example.com/", "com,example)/"},
      {"https://www.example.com/a/b?z=1&a=2", "com,example)/a/b?a=2&z=1"},
      {"http://www2.Example.COM:8080/Path/?B=2&a=1#frag", "com,example:8080)/path/?a=1&b=2"},
      {"http://WWW.example.com/", "com,example,www)/"},  // "www" is removed case-sensitively
      {"http://127.0.0.1:3000/x", "1,0,0,127:3000)/x"},
      {"https://example.org:443/", "org,example)/"},
      {"http://example.com/?", "com,example)/"},
      {"http://xn--bcher-kva.example/", "example,xn--bcher-kva)/"},
      {"http://example.com/a/./b/../c", "com,example)/a/c"},
      {"http://example.com/a%2Fb?q=%41", "com,example)/a%2fb?q=%41"},
      {"http://[::1]:8080/", "[::1]:8080)/"},
      {"ftp://example.com/x", "ftp://example.com/x"},
      {"HTTP://example.com/", "HTTP://example.com/"},
      {"dns:example.com", "dns:example.com"},
      {"http://example.com./x", ",com,example)/x"},
      {"https://www.example.com", "com,example)/"},
      {"http://example.com/a b", "com,example)/a%20b"},
      {"http://exa mple.com/", "http://exa mple.com/"},
      {"http://www.example.com/?a&a=1&=x", "com,example)/?=x&a&a=1"},
  };
  for (const auto& [url, key] : cases) EXPECT_EQ(SurtKey(url), key) << url;
}

TEST(CdxjEntryTest, LineHasWarcioJsFieldsAndOrder) {
  CdxjEntry e{.key = "com,example)/",
              .timestamp = "20240131123456",
              .url = "http://example.com/",
              .mime = "text/html",
              .status = "200",
              .digest = "ABCD",
              .length = 512,
              .offset = 1024,
              .filename = "a.warc.gz"};
  EXPECT_EQ(e.ToLine(),
            R"(com,example)/ 20240131123456 {"url":"http://example.com/","mime":"text/html",)"
            R"("status":"200","digest":"ABCD","length":"512","offset":"1024",)"
            R"("filename":"a.warc.gz"})");
  e.mime.clear();
  e.status.clear();
  e.digest.clear();
  EXPECT_EQ(e.ToLine(), R"(com,example)/ 20240131123456 {"url":"http://example.com/",)"
                        R"("length":"512","offset":"1024","filename":"a.warc.gz"})");
}

TEST(CdxjEntryTest, ParsesItsOwnLinesAndNumbersFromOtherTools) {
  const CdxjEntry e{.key = "com,example)/a",
                    .timestamp = "20240131123456",
                    .url = "http://example.com/a",
                    .mime = "warc/revisit",
                    .status = "200",
                    .digest = "X",
                    .length = 7,
                    .offset = 9,
                    .filename = "b.warc.gz"};
  absl::StatusOr<CdxjEntry> parsed = CdxjEntry::Parse(e.ToLine());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, e);
  // pywb's indexer writes offset and length as strings too; others as numbers.
  parsed = CdxjEntry::Parse(
      R"(com,example)/ 2024 {"url": "http://example.com/", "offset": 5, "length": 6, "filename": "c.warc"})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->offset, 5u);
  EXPECT_EQ(parsed->length, 6u);
  EXPECT_FALSE(CdxjEntry::Parse("no json here").ok());
  EXPECT_FALSE(CdxjEntry::Parse(R"(k 1 {"url":"u"})").ok());  // no offset, length, filename
}

TEST(CdxjTimestampTest, FourteenDigitsOfTheWarcDate) {
  EXPECT_EQ(CdxjTimestamp("2024-01-31T12:34:56Z"), "20240131123456");
  EXPECT_EQ(CdxjTimestamp("2024-01-31T12:34:56.123456Z"), "20240131123456");
}

TEST(ExternalSorterTest, SortsAcrossSpilledRunsInBoundedMemory) {
  const fs::path dir = fs::temp_directory_path() / absl::StrCat("sorter_test_", ::getpid());
  fs::create_directories(dir);
  // A budget of ~1 KiB: hundreds of runs, so the merge takes more than one pass (kMaxFanIn).
  ExternalSorter sorter({.temp_dir = dir.string(), .memory_bytes = 1024});
  std::vector<std::string> lines;
  for (int i = 0; i < 5000; ++i) {
    lines.push_back(absl::StrCat("k", (i * 7919) % 5000, " line ", i % 3));
    ASSERT_TRUE(sorter.Add(lines.back()).ok());
  }
  EXPECT_GT(sorter.runs(), ExternalSorter::kMaxFanIn);
  std::vector<std::string> out;
  ASSERT_TRUE(sorter
                  .Finish([&out](std::string_view line) {
                    out.emplace_back(line);
                    return absl::OkStatus();
                  })
                  .ok());
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(out, lines);
  EXPECT_TRUE(fs::is_empty(dir));  // runs are unlinked at once
  fs::remove_all(dir);
}

TEST(ExternalSorterTest, UniqueDropsRepeatsAndNewlinesAreRefused) {
  ExternalSorter sorter({.temp_dir = fs::temp_directory_path().string(), .unique = true});
  for (const char* line : {"b", "a", "b", "a", "c"}) ASSERT_TRUE(sorter.Add(line).ok());
  EXPECT_FALSE(sorter.Add("x\ny").ok());
  std::vector<std::string> out;
  ASSERT_TRUE(sorter
                  .Finish([&out](std::string_view line) {
                    out.emplace_back(line);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_THAT(out, ElementsAre("a", "b", "c"));
}

class CdxjIndexerTest : public ::testing::Test {
 protected:
  CdxjIndexerTest()
      : dir_(fs::temp_directory_path() /
             absl::StrCat("cdxj_test_", ::getpid(), "_",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~CdxjIndexerTest() override { fs::remove_all(dir_); }

  static WarcRecord Response(const std::string& uri, const std::string& body) {
    WarcRecord r;
    r.type = RecordType::kResponse;
    r.record_id = absl::StrCat("<urn:uuid:", uri.size(), body.size(), ">");
    r.target_uri = uri;
    r.content_type = std::string(kHttpResponseContentType);
    r.payload_digest = fingerprint::Sha1(body).ToWarcString();
    r.block = absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n",
                           "Content-Length: ", body.size(), "\r\n\r\n", body);
    return r;
  }
  static WarcRecord Request(const std::string& uri) {
    WarcRecord r;
    r.type = RecordType::kRequest;
    r.target_uri = uri;
    r.content_type = std::string(kHttpRequestContentType);
    r.block = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    return r;
  }

  // A crawler-like file: per page a response, its request and (for the first) outlinks; a
  // revisit; a resource record. Returns its path.
  std::string WriteFile(bool with_requests = true) {
    FakeClock clock(absl::FromUnixSeconds(1706704496));  // 2024-01-31T12:34:56Z
    absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
        WarcWriter::Open({.directory = dir_.string(), .prefix = "t"}, clock, 1);
    EXPECT_TRUE(writer.ok()) << writer.status();
    std::vector<WarcRecord> records = {Response("http://a.test/b", "<title>B</title>")};
    if (with_requests) records.push_back(Request("http://a.test/b"));
    WarcRecord metadata;
    metadata.type = RecordType::kMetadata;
    metadata.target_uri = "http://a.test/b";
    metadata.content_type = "application/warc-fields";
    metadata.block = "depth: 0\r\noutlink: http://a.test/a\r\n";
    records.push_back(metadata);
    records.push_back(Response("http://a.test/a", "<p>a</p>"));
    if (with_requests) records.push_back(Request("http://a.test/a"));
    WarcRecord revisit = Response("http://a.test/a", "<p>a</p>");
    revisit.type = RecordType::kRevisit;
    revisit.profile = std::string(kProfileIdenticalPayloadDigest);
    revisit.block = revisit.block.substr(0, revisit.block.find("\r\n\r\n") + 4);
    records.push_back(revisit);
    WarcRecord resource;
    resource.type = RecordType::kResource;
    resource.target_uri = "http://a.test/logo.png";
    resource.content_type = "image/png";
    resource.block = "PNG";
    records.push_back(resource);
    EXPECT_TRUE((*writer)->WriteAll(records).ok());
    EXPECT_TRUE((*writer)->Close().ok());
    return (*writer)->Files().back();
  }

  static std::vector<std::string> Lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void Write(const std::string& path, const std::string& data) {
    std::ofstream(path, std::ios::binary) << data;
  }

  // Every record IndexWarcFile hands on: (offset, length, indexed).
  static absl::Status Index(const std::string& path, std::vector<CdxjEntry>& entries,
                            std::vector<std::pair<uint64_t, uint64_t>>* places = nullptr) {
    return IndexWarcFile(path, fs::path(path).filename().string(), {},
                         [&](const PlacedRecord& placed) {
                           if (places != nullptr)
                             places->emplace_back(placed.offset, placed.length);
                           if (placed.entry != nullptr) entries.push_back(*placed.entry);
                           return absl::OkStatus();
                         });
  }

  const fs::path dir_;
};

// Responses, revisits and resource records are indexed; requests, warcinfo and warc-fields
// metadata are not. Each record's offset and length are its gzip member's, back to back.
TEST_F(CdxjIndexerTest, IndexesCapturesAtTheirGzipMembers) {
  const std::string path = WriteFile();
  std::vector<CdxjEntry> entries;
  std::vector<std::pair<uint64_t, uint64_t>> places;
  ASSERT_TRUE(Index(path, entries, &places).ok());
  ASSERT_EQ(places.size(), 8u);  // warcinfo + 7
  uint64_t end = 0;
  for (const auto& [offset, length] : places) {
    EXPECT_EQ(offset, end);
    end = offset + length;
  }
  EXPECT_EQ(end, fs::file_size(path));
  const std::string data = Read(path);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].url, "http://a.test/b");
  EXPECT_EQ(entries[0].key, "test,a)/b");
  EXPECT_EQ(entries[0].timestamp, "20240131123456");
  EXPECT_EQ(entries[0].mime, "text/html");
  EXPECT_EQ(entries[0].status, "200");
  EXPECT_EQ(entries[0].digest, fingerprint::Sha1("<title>B</title>").ToBase32());
  EXPECT_EQ(entries[0].filename, fs::path(path).filename().string());
  EXPECT_EQ(entries[2].mime, "warc/revisit");
  EXPECT_EQ(entries[2].status, "200");
  EXPECT_EQ(entries[3].mime, "image/png");
  EXPECT_THAT(entries[3].status, IsEmpty());
  for (const CdxjEntry& e : entries) {
    // The bytes at (offset, length) are one gzip member holding the record.
    const std::string member = data.substr(e.offset, e.length);
    EXPECT_EQ(member.substr(0, 2), "\x1f\x8b") << e.url;
  }
}

// A writer that indexes its files as it writes them (write_index) writes, for every file, the
// very index a reader of the file writes: over rotations (several files), batches that cross
// them, spilled sort runs, and records whose fields a reader sees otherwise than they were set
// (surrounding spaces, CR/LF, an extra Content-Type written before the standard one). Each file
// is announced with its index once it has its final name.
TEST_F(CdxjIndexerTest, AWriterIndexesItsFilesAsAReaderWould) {
  FakeClock clock(absl::FromUnixSeconds(1706704496));
  std::vector<std::pair<std::string, std::string>> announced;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer = WarcWriter::Open(
      {.directory = dir_.string(),
       .prefix = "w",
       .max_file_bytes = 4096,
       .write_index = true,
       .index_memory_bytes = 300,
       .indexed = [&](const std::string& warc,
                      const std::string& cdxj) { announced.emplace_back(warc, cdxj); }},
      clock, 3);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int page = 0; page < 12; ++page) {
    const std::string uri = absl::StrCat("http://h", page % 3, ".test/p", page);
    // Bodies that do not compress away, so that files rotate every few pages.
    std::string body;
    for (int i = 0; i < 300; ++i) {
      body += fingerprint::Sha1(absl::StrCat(page, ":", i)).ToBase32().substr(0, 3);
    }
    std::vector<WarcRecord> batch = {Response(uri, body), Request(uri)};
    WarcRecord interim = Response(uri + "?c", "x");
    interim.block = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\n"
                    "Content-Type:  Text/Plain ; q=1\r\n\r\nx";
    batch.push_back(interim);
    WarcRecord headless = Response(uri + "?h", "y");
    headless.block = "not an HTTP response";
    batch.push_back(headless);
    WarcRecord revisit = Response(uri, "");
    revisit.type = RecordType::kRevisit;
    revisit.block = page % 2 == 0 ? revisit.block.substr(0, revisit.block.find("\r\n\r\n") + 4)
                                  : "";
    batch.push_back(revisit);
    WarcRecord resource;
    resource.type = RecordType::kResource;
    resource.target_uri = absl::StrCat("  ", uri, "/r\r\nX-Forged: 1 ");
    resource.content_type = "text/plain; charset=utf-8";
    if (page % 4 == 1) resource.extra_fields = {{"content-TYPE", "image/x-override"}};
    resource.payload_digest = page % 2 == 0 ? "sha1:ABC:DEF" : "";
    resource.block = "text";
    batch.push_back(resource);
    WarcRecord outlinks;
    outlinks.type = RecordType::kMetadata;
    outlinks.target_uri = uri;
    outlinks.content_type = "application/warc-fields";
    outlinks.block = "outlink: http://a.test/\r\n";
    batch.push_back(outlinks);
    WarcRecord other_metadata = outlinks;
    other_metadata.content_type = "application/json";
    batch.push_back(other_metadata);
    if (page % 3 == 0) {
      for (WarcRecord& record : batch) ASSERT_TRUE((*writer)->Write(record).ok());
    } else {
      ASSERT_TRUE((*writer)->WriteAll(batch).ok());
    }
    clock.Advance(absl::Seconds(61));
  }
  ASSERT_TRUE((*writer)->Close().ok());
  const std::vector<std::string> files = (*writer)->Files();
  ASSERT_GE(files.size(), 4u) << "no rotation: not exercised";
  ASSERT_EQ(announced.size(), files.size());
  EXPECT_EQ((*writer)->IndexesFailed(), 0u);
  size_t lines = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string written = CdxjPathFor(files[i]);
    EXPECT_EQ(announced[i], std::make_pair(files[i], written));
    const std::string read_back = (dir_ / absl::StrCat("read-", i, ".cdxj")).string();
    ASSERT_TRUE(WriteCdxjIndex(files[i], read_back, {}).ok());
    EXPECT_EQ(Read(written), Read(read_back)) << files[i];
    lines += Lines(written).size();
  }
  EXPECT_EQ(lines, 12u * 6u);  // response, 100+404, headless, revisit, resource, JSON metadata
}

// Without request records every capture is indexed all the same (nothing pairs with them).
TEST_F(CdxjIndexerTest, FileWithoutRequestRecordsIsIndexed) {
  std::vector<CdxjEntry> entries;
  ASSERT_TRUE(Index(WriteFile(/*with_requests=*/false), entries).ok());
  EXPECT_EQ(entries.size(), 4u);
}

// An uncompressed WARC: a record runs from its first byte to the end of its block; the CRLF CRLF
// after it is not counted (as warcio.js counts it).
TEST_F(CdxjIndexerTest, UncompressedFile) {
  const std::string plain = (dir_ / "plain.warc").string();
  std::string data;
  for (const WarcRecord& r :
       {Response("http://a.test/1", "one"), Response("http://a.test/2", "two")}) {
    WarcRecord copy = r;
    copy.record_id = "<urn:uuid:x>";
    copy.date = absl::FromUnixSeconds(1706704496);
    data += SerializeRecord(copy);
  }
  Write(plain, data);
  std::vector<CdxjEntry> entries;
  ASSERT_TRUE(Index(plain, entries).ok());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].offset, 0u);
  EXPECT_EQ(entries[1].offset, entries[0].length + 4);
  EXPECT_EQ(entries[1].offset + entries[1].length + 4, data.size());
}

TEST_F(CdxjIndexerTest, TruncatedFileIsRefusedWithTheOffset) {
  const std::string path = WriteFile();
  const std::string data = Read(path);
  Write(path, data.substr(0, data.size() - 10));
  std::vector<CdxjEntry> entries;
  absl::Status status = Index(path, entries);
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("damaged at offset"));
}

TEST_F(CdxjIndexerTest, GzipMemberCutInTheMiddleIsRefused) {
  const std::string path = WriteFile();
  std::vector<CdxjEntry> entries;
  std::vector<std::pair<uint64_t, uint64_t>> places;
  ASSERT_TRUE(Index(path, entries, &places).ok());
  // Drop the second half of the third record's member; the records after it stay.
  const std::string data = Read(path);
  const auto [offset, length] = places[2];
  Write(path, data.substr(0, offset + length / 2) + data.substr(offset + length));
  entries.clear();
  absl::Status status = Index(path, entries);
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("offset ", offset)));
}

// The whole file as one gzip stream: records cannot be addressed, and saying so is the answer.
TEST_F(CdxjIndexerTest, RecordsSharingAGzipMemberAreRefused) {
  const std::string path = (dir_ / "one-member.warc.gz").string();
  WarcRecord a = Response("http://a.test/1", "one");
  WarcRecord b = Response("http://a.test/2", "two");
  a.date = b.date = absl::FromUnixSeconds(1706704496);
  Write(path, GzipMember(SerializeRecord(a) + SerializeRecord(b), 6));
  std::vector<CdxjEntry> entries;
  absl::Status status = Index(path, entries);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("not compressed record by record"));
}

TEST_F(CdxjIndexerTest, WrittenIndexIsSortedAndVerifies) {
  const std::string path = WriteFile();
  const std::string cdxj = CdxjPathFor(path);
  EXPECT_TRUE(cdxj.ends_with(".cdxj") && !cdxj.ends_with(".warc.gz.cdxj"));
  ASSERT_TRUE(WriteCdxjIndex(path, cdxj, {}).ok());
  std::vector<std::string> lines = Lines(cdxj);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  const CdxjVerifyReport report = VerifyCdxjIndex(cdxj, {});
  EXPECT_TRUE(report.status.ok()) << report.status;
  EXPECT_EQ(report.lines, 4u);
  EXPECT_EQ(report.warc_files, 1u);
}

// A line whose offset is wrong is reported as such, with what the WARC holds there; the line
// its record should have is reported missing.
TEST_F(CdxjIndexerTest, VerifyReportsAWrongOffset) {
  const std::string path = WriteFile();
  const std::string cdxj = CdxjPathFor(path);
  ASSERT_TRUE(WriteCdxjIndex(path, cdxj, {}).ok());
  std::vector<std::string> lines = Lines(cdxj);
  absl::StatusOr<CdxjEntry> entry = CdxjEntry::Parse(lines[1]);
  ASSERT_TRUE(entry.ok());
  entry->offset += 3;
  lines[1] = entry->ToLine();
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  Write(cdxj, text);
  const CdxjVerifyReport report = VerifyCdxjIndex(cdxj, {});
  EXPECT_TRUE(absl::IsDataLoss(report.status)) << report.status;
  EXPECT_EQ(report.missing, 1u);
  EXPECT_EQ(report.unexpected, 1u);
  EXPECT_THAT(
      report.problems,
      ::testing::Contains(HasSubstr(absl::StrCat("offset ", entry->offset, " of ", entry->filename,
                                                 ": not the start of a record"))));
}

TEST_F(CdxjIndexerTest, VerifyReportsMissingAndUnsortedLines) {
  const std::string path = WriteFile();
  const std::string cdxj = CdxjPathFor(path);
  ASSERT_TRUE(WriteCdxjIndex(path, cdxj, {}).ok());
  std::vector<std::string> lines = Lines(cdxj);
  Write(cdxj, lines[3] + "\n" + lines[0] + "\n" + lines[1] + "\n");
  const CdxjVerifyReport report = VerifyCdxjIndex(cdxj, {});
  EXPECT_TRUE(absl::IsDataLoss(report.status)) << report.status;
  EXPECT_EQ(report.missing, 1u);
  EXPECT_EQ(report.unexpected, 0u);
  EXPECT_THAT(report.problems, ::testing::Contains(HasSubstr("out of order")));
}

TEST_F(CdxjIndexerTest, VerifyNamesAWarcThatIsNotThere) {
  const std::string cdxj = (dir_ / "x.cdxj").string();
  Write(
      cdxj,
      R"(test,a)/ 20240131123456 {"url":"http://a.test/","length":"1","offset":"0","filename":"gone.warc.gz"})"
      "\n");
  const CdxjVerifyReport report = VerifyCdxjIndex(cdxj, {});
  EXPECT_TRUE(absl::IsNotFound(report.status)) << report.status;
  EXPECT_THAT(report.status.message(), HasSubstr("gone.warc.gz"));
}

}  // namespace
}  // namespace crawler::warc
