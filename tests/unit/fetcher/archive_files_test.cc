// A fetcher's archive (archive_indexer.h, archive_file_store.h): indexes beside finished WARC
// files only, each once, failures not retried until the file changes; finished files listed
// with their digests and read from any offset; names that would leave the collection's
// directory refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/sha1.h"
#include "lib/fingerprint/sha256.h"
#include "lib/log/recording_log_sink.h"
#include "lib/warc/cdxj_indexer.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"
#include "services/fetcher/archive_file_store.h"
#include "services/fetcher/archive_indexer.h"

namespace crawler::fetcher {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class ArchiveFilesTest : public ::testing::Test {
 protected:
  ArchiveFilesTest()
      : dir_(fs::temp_directory_path() /
             absl::StrCat("archive_files_test_", ::getpid(), "_",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "coll");
  }
  ~ArchiveFilesTest() override { fs::remove_all(dir_); }

  // A WARC writer of collection "coll" with one page written; the caller closes it or not.
  std::unique_ptr<warc::WarcWriter> Writer() {
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer = warc::WarcWriter::Open(
        {.directory = (dir_ / "coll").string(), .prefix = "coll-p0"}, clock_, 1);
    EXPECT_TRUE(writer.ok()) << writer.status();
    warc::WarcRecord r;
    r.type = warc::RecordType::kResponse;
    r.target_uri = "http://a.test/";
    r.content_type = std::string(warc::kHttpResponseContentType);
    r.payload_digest = fingerprint::Sha1("hi").ToWarcString();
    r.block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi";
    EXPECT_TRUE((*writer)->Write(r).ok());
    return *std::move(writer);
  }

  FakeClock clock_;
  const fs::path dir_;
};

TEST_F(ArchiveFilesTest, IndexerWritesAnIndexBesideFinishedFilesOnly) {
  std::unique_ptr<warc::WarcWriter> open_writer = Writer();
  ArchiveIndexer indexer({.warc_dir = dir_.string()});
  EXPECT_EQ(indexer.IndexPending(), 0u);  // the only file is still ".open"
  ASSERT_TRUE(open_writer->Close().ok());
  EXPECT_EQ(indexer.IndexPending(), 1u);
  EXPECT_EQ(indexer.IndexPending(), 0u);  // once
  const std::string warc = open_writer->Files().back();
  const std::string cdxj = warc.substr(0, warc.size() - 8) + ".cdxj";
  EXPECT_THAT(Read(cdxj), HasSubstr(R"("url":"http://a.test/")"));
}

// A file its writer indexed (write_index) is reported at the next pass, as one indexed here is,
// and not read again; a file without an index beside it still is.
TEST_F(ArchiveFilesTest, IndexerReportsFilesItsWriterIndexedWithoutReadingThem) {
  std::vector<std::pair<std::string, std::string>> reported;
  auto indexer = std::make_shared<ArchiveIndexer>(ArchiveIndexerOptions{
      .warc_dir = dir_.string(),
      .indexed = [&](const std::string& warc, const std::string& cdxj) {
        reported.emplace_back(warc, cdxj);
      }});
  absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer = warc::WarcWriter::Open(
      {.directory = (dir_ / "coll").string(),
       .prefix = "w",
       .write_index = true,
       .indexed = [indexer](const std::string& warc,
                            const std::string& cdxj) { indexer->Announce(warc, cdxj); }},
      clock_, 2);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Close().ok());
  ASSERT_TRUE(Writer()->Close().ok());  // a writer that does not index
  EXPECT_EQ(indexer->IndexPending(), 1u);  // read: the second file only
  ASSERT_EQ(reported.size(), 2u);
  const std::string warc = (*writer)->Files().back();
  EXPECT_EQ(reported[0], std::make_pair(warc, warc::CdxjPathFor(warc)));
  EXPECT_TRUE(fs::exists(warc::CdxjPathFor(reported[1].first)));
}

// Tick passes run every `interval` of the clock it is given.
TEST_F(ArchiveFilesTest, IndexerTicksEveryInterval) {
  ArchiveIndexer indexer({.warc_dir = dir_.string(), .interval = absl::Seconds(5)});
  const absl::Time t0 = clock_.Now();
  indexer.Tick(t0);
  ASSERT_TRUE(Writer()->Close().ok());
  indexer.Tick(t0 + absl::Seconds(4));
  EXPECT_EQ(indexer.indexed(), 0u);
  indexer.Tick(t0 + absl::Seconds(5));
  EXPECT_EQ(indexer.indexed(), 1u);
}

// A damaged file is reported once and tried again only after it changed.
TEST_F(ArchiveFilesTest, IndexerDoesNotRetryAFailureUntilTheFileChanges) {
  RecordingLogSink sink;
  ArchiveIndexer indexer({.warc_dir = dir_.string(), .log = Logger(sink, "fetcher")});
  const fs::path bad = dir_ / "coll" / "bad.warc.gz";
  std::ofstream(bad, std::ios::binary) << "\x1f\x8b not gzip";
  EXPECT_EQ(indexer.IndexPending(), 0u);
  EXPECT_EQ(indexer.IndexPending(), 0u);
  EXPECT_EQ(indexer.failed(), 1u);
  const std::vector<std::string> lines = sink.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("cannot index"));
  std::ofstream(bad, std::ios::binary | std::ios::app) << "more";
  indexer.IndexPending();
  EXPECT_EQ(indexer.failed(), 2u);
}

TEST_F(ArchiveFilesTest, StoreListsFinishedFilesWithDigestsAndNamesTheRest) {
  std::unique_ptr<warc::WarcWriter> first = Writer();
  ASSERT_TRUE(first->Close().ok());
  ArchiveIndexer({.warc_dir = dir_.string()}).IndexPending();
  std::unique_ptr<warc::WarcWriter> second = Writer();  // finished, not indexed yet
  ASSERT_TRUE(second->Close().ok());
  std::unique_ptr<warc::WarcWriter> third = Writer();  // still being written
  ArchiveFileStore store(dir_.string());
  absl::StatusOr<ArchiveListing> listing = store.List("coll");
  ASSERT_TRUE(listing.ok()) << listing.status();
  std::vector<std::string> names;
  for (const ArchiveFileInfo& f : listing->files) {
    names.push_back(f.name);
    EXPECT_EQ(f.sha256, fingerprint::Sha256Labelled(Read(dir_ / "coll" / f.name)));
    EXPECT_EQ(f.size, fs::file_size(dir_ / "coll" / f.name));
  }
  const std::string a = fs::path(first->Files().back()).filename().string();
  const std::string b = fs::path(second->Files().back()).filename().string();
  const std::string a_index = a.substr(0, a.size() - 8) + ".cdxj";
  const std::string b_index = b.substr(0, b.size() - 8) + ".cdxj";
  EXPECT_THAT(names, ElementsAre(a_index, a, b));
  EXPECT_EQ(listing->files[0].kind, ArchiveFileInfo::Kind::kCdxj);
  EXPECT_EQ(listing->files[1].kind, ArchiveFileInfo::Kind::kWarc);
  const std::string c = fs::path(third->Files().back()).filename().string();  // "X.open"
  EXPECT_THAT(listing->in_progress, ElementsAre(b_index, c));
  // An unknown collection is an empty listing, not an error.
  absl::StatusOr<ArchiveListing> none = store.List("other");
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(none->files, IsEmpty());
}

TEST_F(ArchiveFilesTest, StoreReadsFromAnyOffsetInChunks) {
  std::unique_ptr<warc::WarcWriter> w = Writer();
  ASSERT_TRUE(w->Close().ok());
  const std::string name = fs::path(w->Files().back()).filename().string();
  const std::string whole = Read(dir_ / "coll" / name);
  ArchiveFileStore store(dir_.string());
  for (const uint64_t from : {uint64_t{0}, uint64_t{7}, uint64_t{whole.size()}}) {
    std::string got;
    absl::Status status =
        store.Read("coll", name, from, [&](uint64_t offset, std::string_view data) {
          EXPECT_EQ(offset, from + got.size());
          got.append(data);
          return true;
        });
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(got, whole.substr(from));
  }
  EXPECT_TRUE(absl::IsOutOfRange(
      store.Read("coll", name, whole.size() + 1, [](uint64_t, std::string_view) { return true; })));
  EXPECT_TRUE(absl::IsCancelled(
      store.Read("coll", name, 0, [](uint64_t, std::string_view) { return false; })));
}

// A digest computed once (here by Warm, as the indexer does) is kept while the file's size,
// modification time and inode stay: the listing does not read the file again.
TEST_F(ArchiveFilesTest, StoreKeepsDigestsOfUnchangedFiles) {
  std::unique_ptr<warc::WarcWriter> w = Writer();
  ASSERT_TRUE(w->Close().ok());
  const std::string path = w->Files().back();
  const std::string before = fingerprint::Sha256Labelled(Read(path));
  ArchiveFileStore store(dir_.string());
  ASSERT_TRUE(store.Warm(path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('X');
  }
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  absl::StatusOr<ArchiveListing> listing = store.List("coll");
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->files.size(), 1u);
  EXPECT_EQ(listing->files[0].sha256, before);
  EXPECT_TRUE(absl::IsUnavailable(store.Warm((dir_ / "coll" / "absent.warc.gz").string())));
}

// Names from clients never reach outside <warc_dir>/<collection>/, nor files being written.
TEST_F(ArchiveFilesTest, StoreRefusesNamesOutsideTheCollection) {
  std::ofstream(dir_ / "secret.warc.gz") << "x";
  fs::create_symlink(dir_ / "secret.warc.gz", dir_ / "coll" / "link.warc.gz");
  std::unique_ptr<warc::WarcWriter> open_writer = Writer();
  const std::string open_name = fs::path(open_writer->Files().back()).filename().string();
  ArchiveFileStore store(dir_.string());
  auto read = [&store](const std::string& collection, const std::string& name) {
    return store.Read(collection, name, 0, [](uint64_t, std::string_view) { return true; });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(read("..", "secret.warc.gz")));
  EXPECT_TRUE(absl::IsInvalidArgument(read("", "x.warc.gz")));
  EXPECT_TRUE(absl::IsNotFound(read("coll", "../secret.warc.gz")));
  EXPECT_TRUE(absl::IsNotFound(read("coll", "link.warc.gz")));
  EXPECT_TRUE(absl::IsNotFound(read("coll", open_name)));
  EXPECT_TRUE(absl::IsNotFound(read("coll", "notes.txt")));
  EXPECT_TRUE(absl::IsInvalidArgument(store.List("a/b").status()));
  absl::StatusOr<ArchiveListing> listing = store.List("coll");
  ASSERT_TRUE(listing.ok());
  for (const ArchiveFileInfo& f : listing->files) EXPECT_NE(f.name, "link.warc.gz");
}

// The volume id is drawn once and kept in the data dir: the same across restarts, another for
// another data dir.
TEST_F(ArchiveFilesTest, VolumeIdIsKeptInTheDataDir) {
  absl::StatusOr<std::string> first = ArchiveVolumeId((dir_ / "data").string());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 16u);
  EXPECT_EQ(*ArchiveVolumeId((dir_ / "data").string()), *first);
  EXPECT_NE(*ArchiveVolumeId((dir_ / "other").string()), *first);
}

}  // namespace
}  // namespace crawler::fetcher
