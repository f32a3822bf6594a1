// WACZ packages (zip_writer.h, page_list.h, wacz_builder.h): stored ZIP entries readable by the
// central directory (ZIP64 included), the WACZ 1.1.1 layout with correct SHA-256s, the index
// in both forms, the page list, and the inputs that are refused without writing a package.
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/fingerprint/sha256.h"
#include "lib/wacz/wacz_builder.h"
#include "lib/wacz/zip_writer.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"

namespace crawler::wacz {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint64_t Get(const std::string& d, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(d[at + i]);
  return v;
}

// A ZIP reader of its own, by the central directory (APPNOTE 4.3.12-4.3.16, 4.5.3), as range
// readers such as ReplayWeb.page's read a package: name -> stored bytes, CRC and sizes checked.
std::map<std::string, std::string> ReadZip(const std::string& zip, bool* saw_zip64 = nullptr) {
  std::map<std::string, std::string> entries;
  const size_t eocd = zip.rfind(std::string("PK\x05\x06", 4));
  EXPECT_NE(eocd, std::string::npos);
  uint64_t count = Get(zip, eocd + 10, 2);
  uint64_t cd_offset = Get(zip, eocd + 16, 4);
  if (cd_offset == 0xFFFFFFFF || count == 0xFFFF) {
    EXPECT_EQ(Get(zip, eocd - 20, 4), 0x07064b50u);  // ZIP64 locator
    const uint64_t z64 = Get(zip, eocd - 12, 8);
    EXPECT_EQ(Get(zip, z64, 4), 0x06064b50u);
    count = Get(zip, z64 + 32, 8);
    cd_offset = Get(zip, z64 + 48, 8);
    if (saw_zip64 != nullptr) *saw_zip64 = true;
  }
  size_t p = cd_offset;
  for (uint64_t i = 0; i < count; ++i) {
    EXPECT_EQ(Get(zip, p, 4), 0x02014b50u);
    EXPECT_EQ(Get(zip, p + 10, 2), 0u);  // stored
    const uint32_t crc = static_cast<uint32_t>(Get(zip, p + 16, 4));
    uint64_t size = Get(zip, p + 24, 4);
    const size_t name_length = Get(zip, p + 28, 2);
    const size_t extra_length = Get(zip, p + 30, 2);
    uint64_t local = Get(zip, p + 42, 4);
    const std::string name = zip.substr(p + 46, name_length);
    size_t x = p + 46 + name_length;
    if (extra_length > 0) {
      EXPECT_EQ(Get(zip, x, 2), 1u);  // the ZIP64 field
      x += 4;
      if (size == 0xFFFFFFFF) {
        size = Get(zip, x, 8);
        x += 16;  // uncompressed and compressed
      }
      if (local == 0xFFFFFFFF) local = Get(zip, x, 8);
    }
    EXPECT_EQ(Get(zip, local, 4), 0x04034b50u) << name;
    const size_t data = local + 30 + Get(zip, local + 26, 2) + Get(zip, local + 28, 2);
    std::string bytes = zip.substr(data, size);
    EXPECT_EQ(::crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()), crc) << name;
    entries[name] = std::move(bytes);
    p += 46 + name_length + extra_length + Get(zip, p + 32, 2);
  }
  return entries;
}

class WaczTest : public ::testing::Test {
 protected:
  WaczTest()
      : dir_(fs::temp_directory_path() /
             absl::StrCat("wacz_test_", ::getpid(), "_",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~WaczTest() override { fs::remove_all(dir_); }

  static warc::WarcRecord Response(const std::string& uri, int status, const std::string& type,
                                   const std::string& body) {
    warc::WarcRecord r;
    r.type = warc::RecordType::kResponse;
    r.target_uri = uri;
    r.content_type = std::string(warc::kHttpResponseContentType);
    r.payload_digest = fingerprint::Sha1(body).ToWarcString();
    r.block = absl::StrCat("HTTP/1.1 ", status, " X\r\nContent-Type: ", type,
                           "\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
    return r;
  }
  static warc::WarcRecord Metadata(const std::string& uri, int depth) {
    warc::WarcRecord r;
    r.type = warc::RecordType::kMetadata;
    r.target_uri = uri;
    r.content_type = "application/warc-fields";
    r.block = absl::StrCat("depth: ", depth, "\r\noutlink: http://a.test/x\r\n");
    return r;
  }

  // A WARC of a small crawl in `sub` (a directory of its own), started at `seconds`.
  std::string WriteWarc(const std::string& sub, int64_t seconds,
                        std::vector<warc::WarcRecord> records) {
    FakeClock clock(absl::FromUnixSeconds(seconds));
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
        warc::WarcWriter::Open({.directory = (dir_ / sub).string(), .prefix = "c"}, clock, 1);
    EXPECT_TRUE(writer.ok()) << writer.status();
    EXPECT_TRUE((*writer)->WriteAll(std::move(records)).ok());
    EXPECT_TRUE((*writer)->Close().ok());
    return (*writer)->Files().back();
  }

  // A revisit record: the header block of a 200 HTML response, no body.
  static warc::WarcRecord Revisit(const std::string& uri) {
    warc::WarcRecord r = Response(uri, 200, "text/html", "");
    r.type = warc::RecordType::kRevisit;
    r.profile = std::string(warc::kProfileIdenticalPayloadDigest);
    return r;
  }

  std::vector<std::string> TwoWarcs() {
    return {WriteWarc("one", 1706704496,
                      {Response("http://a.test/", 200, "text/html; charset=utf-8",
                                "<title>Home &amp; away</title><a href=x>x</a>"),
                       Metadata("http://a.test/", 0),
                       Response("http://a.test/x", 200, "text/html", "<title>X</title>"),
                       Metadata("http://a.test/x", 1),
                       Response("http://a.test/gone", 404, "text/html", "<title>404</title>"),
                       Response("http://a.test/logo.png", 200, "image/png", "PNG")}),
            WriteWarc("two", 1706704596,
                      {Revisit("http://a.test/"), Revisit("http://b.test/only-revisit")})};
  }

  const fs::path dir_;
};

TEST_F(WaczTest, ZipEntriesAreStoredAndReadByTheCentralDirectory) {
  const std::string path = (dir_ / "t.zip").string();
  const std::string big(300, 'x');
  std::ofstream(dir_ / "src", std::ios::binary) << big;
  absl::StatusOr<std::unique_ptr<ZipWriter>> zip = ZipWriter::Create(path, {});
  ASSERT_TRUE(zip.ok()) << zip.status();
  absl::StatusOr<ZipEntryInfo> a = (*zip)->AddBytes("a/one.txt", "hello");
  absl::StatusOr<ZipEntryInfo> b = (*zip)->AddFile("b.bin", (dir_ / "src").string());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->sha256, fingerprint::Sha256Labelled("hello"));
  EXPECT_EQ(b->size, 300u);
  EXPECT_EQ(b->sha256, fingerprint::Sha256Labelled(big));
  ASSERT_TRUE((*zip)->Close().ok());
  bool zip64 = false;
  const std::map<std::string, std::string> entries = ReadZip(Read(path), &zip64);
  EXPECT_FALSE(zip64);
  EXPECT_EQ(entries.at("a/one.txt"), "hello");
  EXPECT_EQ(entries.at("b.bin"), big);
}

// APPNOTE 4.5.3: sizes and offsets past the threshold go in ZIP64 fields, and the package ends
// with the ZIP64 end record and locator (the threshold is lowered so that 4 GiB need not be
// written).
TEST_F(WaczTest, Appnote_4_5_3_Zip64FieldsPastTheThreshold) {
  const std::string path = (dir_ / "t.zip").string();
  absl::StatusOr<std::unique_ptr<ZipWriter>> zip =
      ZipWriter::Create(path, {.zip64_threshold = 100});
  ASSERT_TRUE(zip.ok());
  ASSERT_TRUE((*zip)->AddBytes("small", "s").ok());
  ASSERT_TRUE((*zip)->AddBytes("large", std::string(150, 'l')).ok());
  ASSERT_TRUE((*zip)->AddBytes("late", "after the threshold").ok());
  ASSERT_TRUE((*zip)->Close().ok());
  bool zip64 = false;
  const std::map<std::string, std::string> entries = ReadZip(Read(path), &zip64);
  EXPECT_TRUE(zip64);
  EXPECT_EQ(entries.at("small"), "s");
  EXPECT_EQ(entries.at("large"), std::string(150, 'l'));
  EXPECT_EQ(entries.at("late"), "after the threshold");
}

TEST_F(WaczTest, PackageHasTheWacz111LayoutAndHashes) {
  const std::vector<std::string> warcs = TwoWarcs();
  const std::string out = (dir_ / "c.wacz").string();
  absl::StatusOr<WaczReport> report = BuildWacz({.warc_files = warcs,
                                                 .output = out,
                                                 .title = "coll",
                                                 .software = "test",
                                                 .created = absl::FromUnixSeconds(1706704800),
                                                 .index_form = IndexForm::kCdxj});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->warc_files, 2u);
  EXPECT_EQ(report->index_lines, 6u);
  EXPECT_EQ(report->index_form, IndexForm::kCdxj);
  const std::map<std::string, std::string> entries = ReadZip(Read(out));
  std::vector<std::string> names;
  for (const auto& [name, bytes] : entries) names.push_back(name);
  const std::string a = "archive/" + fs::path(warcs[0]).filename().string();
  const std::string b = "archive/" + fs::path(warcs[1]).filename().string();
  EXPECT_THAT(names,
              ::testing::UnorderedElementsAre(a, b, "datapackage-digest.json", "datapackage.json",
                                              "indexes/index.cdxj", "pages/pages.jsonl"));
  EXPECT_EQ(entries.at(a), Read(warcs[0]));  // stored byte for byte
  const std::string& datapackage = entries.at("datapackage.json");
  for (const std::string& name :
       std::vector<std::string>{a, b, "indexes/index.cdxj", "pages/pages.jsonl"}) {
    EXPECT_THAT(datapackage, HasSubstr(absl::StrCat("\"path\": \"", name, "\", \"hash\": \"",
                                                    fingerprint::Sha256Labelled(entries.at(name)),
                                                    "\", \"bytes\": ", entries.at(name).size())));
  }
  EXPECT_THAT(datapackage, HasSubstr("\"wacz_version\": \"1.1.1\""));
  EXPECT_THAT(datapackage, HasSubstr("\"profile\": \"data-package\""));
  EXPECT_THAT(datapackage, HasSubstr("\"created\": \"2024-01-31T12:40:00Z\""));
  EXPECT_THAT(entries.at("datapackage-digest.json"),
              HasSubstr(fingerprint::Sha256Labelled(datapackage)));
  std::vector<std::string> index =
      absl::StrSplit(entries.at("indexes/index.cdxj"), '\n', absl::SkipEmpty());
  EXPECT_EQ(index.size(), 6u);
  EXPECT_TRUE(std::is_sorted(index.begin(), index.end()));
}

// One line per HTML URL with a 2xx capture, at its first capture, titled from its first
// response; seeds from "depth: 0"; errors and images left out.
TEST_F(WaczTest, PagesListHtmlPagesOnceWithTitlesAndSeeds) {
  const std::string out = (dir_ / "c.wacz").string();
  absl::StatusOr<WaczReport> report = BuildWacz({.warc_files = TwoWarcs(), .output = out});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->pages, 3u);
  EXPECT_EQ(report->seeds, 1u);
  std::vector<std::string> pages =
      absl::StrSplit(ReadZip(Read(out)).at("pages/pages.jsonl"), '\n', absl::SkipEmpty());
  ASSERT_EQ(pages.size(), 4u);
  EXPECT_EQ(pages[0], R"({"format":"json-pages-1.0","id":"pages","title":"All Pages"})");
  EXPECT_THAT(pages[1], HasSubstr(R"("url":"http://a.test/","ts":"2024-01-31T12:34:56Z",)"
                                  R"("title":"Home & away","seed":true})"));
  EXPECT_THAT(pages[2], HasSubstr(R"("url":"http://a.test/x","ts":"2024-01-31T12:34:56Z",)"
                                  R"("title":"X"})"));
  EXPECT_THAT(pages[3], HasSubstr(R"("url":"http://b.test/only-revisit","ts":)"));
}

// The compressed form: gzip members of lines_per_block lines, and an idx line per member with
// its first key, offset, length and SHA-256.
TEST_F(WaczTest, CompressedIndexBlocksAndIdx) {
  const std::string out = (dir_ / "c.wacz").string();
  absl::StatusOr<WaczReport> report = BuildWacz({.warc_files = TwoWarcs(),
                                                 .output = out,
                                                 .compressed_index_min_lines = 5,
                                                 .lines_per_block = 4});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->index_form, IndexForm::kCompressed);
  EXPECT_EQ(report->index_blocks, 2u);
  const std::map<std::string, std::string> entries = ReadZip(Read(out));
  const std::string& data = entries.at("indexes/index.cdx.gz");
  std::vector<std::string> idx =
      absl::StrSplit(entries.at("indexes/index.idx"), '\n', absl::SkipEmpty());
  ASSERT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx[0], R"(!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"})");
  std::string all;
  for (size_t i = 1; i < idx.size(); ++i) {
    const size_t json = idx[i].find(" {");
    uint64_t offset = 0, length = 0;
    ASSERT_EQ(
        std::sscanf(idx[i].c_str() + json, " {\"offset\":%lu,\"length\":%lu", &offset, &length), 2)
        << idx[i];
    const std::string member = data.substr(offset, length);
    EXPECT_THAT(idx[i], HasSubstr(fingerprint::Sha256Labelled(member)));
    std::string plain(4096, '\0');
    z_stream zs{};
    ASSERT_EQ(inflateInit2(&zs, 16 + 15), Z_OK);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
    zs.avail_in = static_cast<uInt>(member.size());
    zs.next_out = reinterpret_cast<Bytef*>(plain.data());
    zs.avail_out = static_cast<uInt>(plain.size());
    ASSERT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);  // one whole member
    plain.resize(zs.total_out);
    inflateEnd(&zs);
    // The idx key is the block's first line up to its JSON.
    EXPECT_EQ(plain.substr(0, json), idx[i].substr(0, json));
    all += plain;
  }
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 6);
}

TEST_F(WaczTest, AFileNamedTwiceIsRefused) {
  const std::vector<std::string> warcs = TwoWarcs();
  fs::create_directories(dir_ / "copy");
  const fs::path copy = dir_ / "copy" / fs::path(warcs[0]).filename();
  fs::copy_file(warcs[0], copy);
  const std::string out = (dir_ / "c.wacz").string();
  absl::StatusOr<WaczReport> report =
      BuildWacz({.warc_files = {warcs[0], warcs[1], copy.string()}, .output = out});
  EXPECT_TRUE(absl::IsInvalidArgument(report.status())) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("is named twice"));
  EXPECT_FALSE(fs::exists(out));
}

// A damaged WARC stops the build; no package, and no partial file, is left.
TEST_F(WaczTest, ADamagedWarcLeavesNoPackage) {
  const std::vector<std::string> warcs = TwoWarcs();
  const std::string data = Read(warcs[1]);
  std::ofstream(warcs[1], std::ios::binary | std::ios::trunc) << data.substr(0, data.size() - 5);
  const std::string out = (dir_ / "c.wacz").string();
  absl::StatusOr<WaczReport> report = BuildWacz({.warc_files = warcs, .output = out});
  EXPECT_TRUE(absl::IsDataLoss(report.status())) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr(fs::path(warcs[1]).filename().string()));
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("c.wacz")) << entry.path();
    EXPECT_FALSE(entry.path().filename().string().starts_with(".")) << entry.path();
  }
}

}  // namespace
}  // namespace crawler::wacz
