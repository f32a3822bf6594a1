// The KvStore contract, run against both implementations: InMemoryKvStore (the fake the core
// tests use) must behave like RocksDbKvStore (the real store) on everything the cores rely on.
// Then RocksDB-only behaviour: persistence across reopen, families kept on disk, the directory
// lock, and the status translation.
#include "services/common/kv/kv_store.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "rocksdb/status.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/common/rocksdb/rocksdb_status.h"

namespace crawler::kv {
namespace {

// A fresh directory under the test temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "kv_store_test_XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<ColumnFamilySpec> Families() {
  return {{"a", 0}, {"b", 0}, {"p", 4}, {"q", 4}, {"g", 0}};
}

std::vector<std::string> Keys(KvStore& store, std::string_view cf, std::string_view begin,
                              std::string_view end) {
  std::vector<std::string> keys;
  absl::StatusOr<std::unique_ptr<KvIterator>> it = store.NewIterator(cf, begin, end);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return keys;
  for (; (*it)->Valid(); (*it)->Next()) keys.emplace_back((*it)->key());
  EXPECT_TRUE((*it)->status().ok());
  return keys;
}

// Gives each typed test a store and a way to flush it to files (a no-op in memory).
struct InMemoryFactory {
  std::unique_ptr<KvStore> Make() { return std::make_unique<InMemoryKvStore>(Families()); }
  void Flush(KvStore&) {}
};
struct RocksDbFactory {
  TempDir dir;
  std::unique_ptr<KvStore> Make() {
    RocksDbKvStoreOptions options;
    options.path = dir.path() + "/db";
    options.write_buffer_bytes = 1 << 20;
    options.block_cache_bytes = 1 << 20;
    absl::StatusOr<std::unique_ptr<RocksDbKvStore>> store =
        RocksDbKvStore::Open(options, Families());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::unique_ptr<KvStore>(std::move(*store)) : nullptr;
  }
  void Flush(KvStore& store) { ASSERT_TRUE(static_cast<RocksDbKvStore&>(store).Flush().ok()); }
};

template <typename Factory>
class KvStoreContract : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = factory_.Make();
    ASSERT_NE(store_, nullptr);
  }
  void Put(std::string_view cf, std::string_view key, std::string_view value) {
    WriteBatch batch;
    batch.Put(cf, key, value);
    ASSERT_TRUE(store_->Write(batch).ok());
  }

  Factory factory_;
  std::unique_ptr<KvStore> store_;
};

using Factories = ::testing::Types<InMemoryFactory, RocksDbFactory>;
TYPED_TEST_SUITE(KvStoreContract, Factories);

TYPED_TEST(KvStoreContract, DeclaredFamiliesOnly) {
  EXPECT_TRUE(this->store_->HasColumnFamily("a"));
  EXPECT_TRUE(this->store_->HasColumnFamily("p"));
  EXPECT_FALSE(this->store_->HasColumnFamily("zz"));
  EXPECT_EQ(this->store_->Get("zz", "k").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->store_->MultiGet("zz", {"k"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->store_->NewIterator("zz", "", "").status().code(),
            absl::StatusCode::kInvalidArgument);
  WriteBatch batch;
  batch.Put("a", "k", "v");
  batch.Put("zz", "k", "v");
  EXPECT_EQ(this->store_->Write(batch).code(), absl::StatusCode::kInvalidArgument);
  // Nothing of the rejected batch was applied.
  EXPECT_EQ(this->store_->Get("a", "k").status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(KvStoreContract, GetPutDelete) {
  EXPECT_EQ(this->store_->Get("a", "k").status().code(), absl::StatusCode::kNotFound);
  this->Put("a", "k", "v1");
  EXPECT_EQ(this->store_->Get("a", "k").value(), "v1");
  EXPECT_EQ(this->store_->Get("b", "k").status().code(), absl::StatusCode::kNotFound);
  this->Put("a", "k", "v2");
  EXPECT_EQ(this->store_->Get("a", "k").value(), "v2");
  WriteBatch batch;
  batch.Delete("a", "k");
  batch.Delete("a", "never-there");
  ASSERT_TRUE(this->store_->Write(batch).ok());
  EXPECT_EQ(this->store_->Get("a", "k").status().code(), absl::StatusCode::kNotFound);
  // Empty values and binary keys are ordinary.
  this->Put("a", std::string("\0\xff", 2), "");
  EXPECT_EQ(this->store_->Get("a", std::string("\0\xff", 2)).value(), "");
}

TYPED_TEST(KvStoreContract, BatchAppliesInOrderAcrossFamilies) {
  WriteBatch batch;
  batch.Put("a", "k", "first");
  batch.Put("b", "k", "other");
  batch.Delete("a", "k");
  batch.Put("a", "k", "last");
  batch.Put("a", "gone", "x");
  batch.Delete("a", "gone");
  EXPECT_EQ(batch.size(), 6u);
  ASSERT_TRUE(this->store_->Write(batch).ok());
  EXPECT_EQ(this->store_->Get("a", "k").value(), "last");
  EXPECT_EQ(this->store_->Get("b", "k").value(), "other");
  EXPECT_EQ(this->store_->Get("a", "gone").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(this->store_->Write(WriteBatch()).ok());
}

// A large batch whose operations on each key are interleaved with other keys' and
// families': the last operation on a key decides, whatever order a store applies keys in.
TYPED_TEST(KvStoreContract, LargeBatchKeepsTheOrderOfOperationsOnEachKey) {
  WriteBatch batch;
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> last;
  for (int round = 0; round < 40; ++round) {
    for (int k : {13, 4, 27, 0, 19, 8, 31, 2}) {
      const std::string family = k % 2 == 0 ? "a" : "b";
      const std::string key = absl::StrCat("key", k % 16);
      if ((round + k) % 7 == 3) {
        batch.Delete(family, key);
        last[{family, key}] = std::nullopt;
      } else {
        const std::string value = absl::StrCat("v", round, ".", k);
        batch.Put(family, key, value);
        last[{family, key}] = value;
      }
    }
  }
  ASSERT_TRUE(this->store_->Write(batch).ok());
  for (const auto& [where, value] : last) {
    absl::StatusOr<std::string> got = this->store_->Get(where.first, where.second);
    if (value.has_value()) {
      EXPECT_EQ(got.value_or("<absent>"), *value) << where.first << "/" << where.second;
    } else {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound)
          << where.first << "/" << where.second;
    }
  }
}

TYPED_TEST(KvStoreContract, MultiGetReportsAbsentAsNullopt) {
  this->Put("a", "x", "1");
  this->Put("a", "z", "3");
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      this->store_->MultiGet("a", {"z", "y", "x", "x"});
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values->size(), 4u);
  EXPECT_EQ((*values)[0], "3");
  EXPECT_EQ((*values)[1], std::nullopt);
  EXPECT_EQ((*values)[2], "1");
  EXPECT_EQ((*values)[3], "1");
  EXPECT_TRUE(this->store_->MultiGet("a", {}).value().empty());
}

TYPED_TEST(KvStoreContract, IteratesHalfOpenRangesInBytewiseOrder) {
  for (const char* key : {"b", "a", "ab", "c", "\xff"}) this->Put("a", key, "v");
  this->Put("a", std::string("a\0", 2), "v");
  EXPECT_EQ(Keys(*this->store_, "a", "", ""),
            (std::vector<std::string>{"a", std::string("a\0", 2), "ab", "b", "c", "\xff"}));
  EXPECT_EQ(Keys(*this->store_, "a", "a", "b"),
            (std::vector<std::string>{"a", std::string("a\0", 2), "ab"}));
  EXPECT_EQ(Keys(*this->store_, "a", "ab", "c"), (std::vector<std::string>{"ab", "b"}));
  EXPECT_EQ(Keys(*this->store_, "a", "b", ""), (std::vector<std::string>{"b", "c", "\xff"}));
  EXPECT_TRUE(Keys(*this->store_, "a", "d", "e").empty());
  EXPECT_EQ(Keys(*this->store_, "a", "a", PrefixSuccessor("a")),
            (std::vector<std::string>{"a", std::string("a\0", 2), "ab"}));
  EXPECT_TRUE(Keys(*this->store_, "b", "", "").empty());
}

TYPED_TEST(KvStoreContract, PrefixFamilyScansMatchTotalOrder) {
  // Family "p" has a 4-byte scan prefix; spread keys over memtable and files so prefix
  // filters are consulted, then check scans inside one prefix and across prefixes.
  for (const char* key : {"aaaa1", "aaaa2", "bbbb1", "cccc1"}) this->Put("p", key, "v");
  this->factory_.Flush(*this->store_);
  for (const char* key : {"aaaa3", "bbbb2", "dddd1"}) this->Put("p", key, "v");
  EXPECT_EQ(Keys(*this->store_, "p", "aaaa", PrefixSuccessor("aaaa")),
            (std::vector<std::string>{"aaaa1", "aaaa2", "aaaa3"}));
  EXPECT_EQ(Keys(*this->store_, "p", "aaaa2", PrefixSuccessor("aaaa")),
            (std::vector<std::string>{"aaaa2", "aaaa3"}));
  EXPECT_EQ(Keys(*this->store_, "p", "bbbb", PrefixSuccessor("bbbb")),
            (std::vector<std::string>{"bbbb1", "bbbb2"}));
  EXPECT_TRUE(Keys(*this->store_, "p", "abcd", PrefixSuccessor("abcd")).empty());
  EXPECT_EQ(Keys(*this->store_, "p", "aaaa3", "cccc2"),
            (std::vector<std::string>{"aaaa3", "bbbb1", "bbbb2", "cccc1"}));
  EXPECT_EQ(Keys(*this->store_, "p", "cccc", "").size(), 2u);
}

TYPED_TEST(KvStoreContract, SeekRepositionsWithinTheRange) {
  for (const char* key : {"a", "b", "c", "d", "e"}) this->Put("a", key, "v");
  absl::StatusOr<std::unique_ptr<KvIterator>> it = this->store_->NewIterator("a", "b", "e");
  ASSERT_TRUE(it.ok());
  auto rest = [&] {
    std::vector<std::string> keys;
    for (; (*it)->Valid(); (*it)->Next()) keys.emplace_back((*it)->key());
    EXPECT_TRUE((*it)->status().ok());
    return keys;
  };
  (*it)->Seek("c");
  EXPECT_EQ(rest(), (std::vector<std::string>{"c", "d"}));
  (*it)->Seek("bb");  // after exhausting the range: usable again
  EXPECT_EQ(rest(), (std::vector<std::string>{"c", "d"}));
  (*it)->Seek("a");  // before the range: its start
  EXPECT_EQ(rest(), (std::vector<std::string>{"b", "c", "d"}));
  (*it)->Seek("e");  // at the exclusive end
  EXPECT_TRUE(rest().empty());
}

// A prefix family written as a host's queue is (in order within a round, out of order across
// rounds and prefixes), its front deleted and an entry overwritten, across a flush.
TYPED_TEST(KvStoreContract, PrefixFamilyTakesWritesInAnyOrder) {
  std::vector<std::string> expected;
  WriteBatch batch;
  for (int round = 0; round < 3; ++round) {
    for (const char* prefix : {"hhh2", "hhh1", "hhh3"}) {
      for (int i : {5, 1, 9, 3}) {  // in order within a round, out of order across rounds
        const std::string key = absl::StrCat(prefix, round * 10 + i);
        batch.Put("q", key, key);
      }
    }
    ASSERT_TRUE(this->store_->Write(batch).ok());
    batch = WriteBatch();
    if (round == 1) this->factory_.Flush(*this->store_);
  }
  batch.Delete("q", "hhh11");  // the front of a queue is consumed
  batch.Delete("q", "hhh15");
  batch.Put("q", "hhh21", "again");
  ASSERT_TRUE(this->store_->Write(batch).ok());
  for (const char* prefix : {"hhh1", "hhh2", "hhh3"}) {
    for (int round = 0; round < 3; ++round) {
      for (int i : {1, 3, 5, 9}) expected.push_back(absl::StrCat(prefix, round * 10 + i));
    }
  }
  std::sort(expected.begin(), expected.end());
  std::erase(expected, "hhh11");
  std::erase(expected, "hhh15");
  EXPECT_EQ(Keys(*this->store_, "q", "", "\xff"), expected);
  EXPECT_EQ(this->store_->Get("q", "hhh21").value(), "again");
  EXPECT_EQ(this->store_->Get("q", "hhh313").value(), "hhh313");
  EXPECT_EQ(this->store_->Get("q", "hhh11").status().code(), absl::StatusCode::kNotFound);
}

// Groups of keys of any length (URLs of several hosts), written interleaved and out of order,
// overwritten and deleted across a flush, read back in key order.
TYPED_TEST(KvStoreContract, InterleavedGroupsReadBackInKeyOrder) {
  std::set<std::string> expected;
  for (int round = 0; round < 3; ++round) {
    WriteBatch batch;
    for (int i : {7, 2, 9, 0, 4}) {
      for (const char* group : {"host-b.", "a.", "", "host-c.example."}) {
        const std::string key = absl::StrCat(group, (i * 37 + round * 11) % 50);
        batch.Put("g", key, key);
        expected.insert(key);
      }
    }
    batch.Put("g", "nodot", "x");  // the whole key is its group
    expected.insert("nodot");
    ASSERT_TRUE(this->store_->Write(batch).ok());
    if (round == 1) this->factory_.Flush(*this->store_);
  }
  WriteBatch batch;
  batch.Delete("g", "a.33");
  batch.Put("g", "host-b.9", "again");
  ASSERT_TRUE(this->store_->Write(batch).ok());
  expected.erase("a.33");
  EXPECT_EQ(Keys(*this->store_, "g", "", "\xff"),
            std::vector<std::string>(expected.begin(), expected.end()));
  EXPECT_EQ(this->store_->Get("g", "host-b.9").value(), "again");
  EXPECT_EQ(this->store_->Get("g", "a.33").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<std::optional<std::string>>> got =
      this->store_->MultiGet("g", {"host-c.example.24", "a.24", "missing."});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0], "host-c.example.24");
  EXPECT_EQ((*got)[1], "a.24");
  EXPECT_EQ((*got)[2], std::nullopt);
}

TYPED_TEST(KvStoreContract, PrefixIteratorScansOnePrefixPerSeek) {
  // Family "p" has a 4-byte scan prefix; spread keys over memtable and files so the prefix
  // filters are consulted.
  for (const char* key : {"aaaa1", "aaaa2", "bbbb1", "cccc1", "cccd1"}) this->Put("p", key, "v");
  this->factory_.Flush(*this->store_);
  for (const char* key : {"aaaa3", "bbbb2", "dddd1"}) this->Put("p", key, "v");
  this->Put("p",
            "\xff\xff\xff\xff"
            "1",
            "v");
  absl::StatusOr<std::unique_ptr<KvIterator>> it = this->store_->NewPrefixIterator("p");
  ASSERT_TRUE(it.ok()) << it.status();
  EXPECT_FALSE((*it)->Valid());  // unpositioned until the first Seek
  EXPECT_TRUE((*it)->status().ok());
  auto scan = [&](std::string_view prefix) {
    std::vector<std::string> keys;
    for ((*it)->Seek(prefix); (*it)->Valid(); (*it)->Next()) keys.emplace_back((*it)->key());
    EXPECT_TRUE((*it)->status().ok()) << (*it)->status();
    return keys;
  };
  // In any order, absent prefixes included, on one cursor.
  EXPECT_EQ(scan("bbbb"), (std::vector<std::string>{"bbbb1", "bbbb2"}));
  EXPECT_EQ(scan("aaaa"), (std::vector<std::string>{"aaaa1", "aaaa2", "aaaa3"}));
  EXPECT_TRUE(scan("abcd").empty());
  EXPECT_EQ(scan("cccc"), (std::vector<std::string>{"cccc1"}));
  EXPECT_EQ(scan("dddd"), (std::vector<std::string>{"dddd1"}));
  EXPECT_TRUE(scan("eeee").empty());
  EXPECT_EQ(scan("\xff\xff\xff\xff"), (std::vector<std::string>{"\xff\xff\xff\xff"
                                                                "1"}));
  // A target longer than the scan prefix bounds the scan too.
  EXPECT_EQ(scan("aaaa2"), (std::vector<std::string>{"aaaa2"}));
  // Shorter than the scan prefix: refused, and the next good Seek works again.
  (*it)->Seek("aaa");
  EXPECT_FALSE((*it)->Valid());
  EXPECT_EQ((*it)->status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scan("aaaa"), (std::vector<std::string>{"aaaa1", "aaaa2", "aaaa3"}));

  // A family without a scan prefix: any target, plain prefix semantics.
  for (const char* key : {"x", "xa", "xb", "y"}) this->Put("a", key, "v");
  it = this->store_->NewPrefixIterator("a");
  ASSERT_TRUE(it.ok());
  EXPECT_EQ(scan("x"), (std::vector<std::string>{"x", "xa", "xb"}));
  EXPECT_EQ(scan(""), (std::vector<std::string>{"x", "xa", "xb", "y"}));

  EXPECT_EQ(this->store_->NewPrefixIterator("zz").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TYPED_TEST(KvStoreContract, SeekWithinResumesInsideAPrefix) {
  // A queue per 4-byte prefix, read from a position inside it, as Frontier::Lease reads each
  // host's queue from its cursor: on one prefix cursor, and on range cursors.
  for (const char* key : {"aaaa1", "aaaa3", "bbbb1", "bbbb2", "cccc1"}) this->Put("p", key, "v");
  this->factory_.Flush(*this->store_);
  for (const char* key : {"aaaa2", "aaaa4", "bbbb3"}) this->Put("p", key, "v");
  auto scan = [](KvIterator& it, std::string_view prefix, std::string_view target) {
    std::vector<std::string> keys;
    for (it.SeekWithin(prefix, target); it.Valid(); it.Next()) keys.emplace_back(it.key());
    EXPECT_TRUE(it.status().ok()) << it.status();
    return keys;
  };
  absl::StatusOr<std::unique_ptr<KvIterator>> it = this->store_->NewPrefixIterator("p");
  ASSERT_TRUE(it.ok()) << it.status();
  EXPECT_EQ(scan(**it, "aaaa", "aaaa2"), (std::vector<std::string>{"aaaa2", "aaaa3", "aaaa4"}));
  EXPECT_EQ(scan(**it, "bbbb", "bbbb25"), (std::vector<std::string>{"bbbb3"}));
  EXPECT_TRUE(scan(**it, "aaaa", "aaaa5").empty());  // past its last key: not into "bbbb"
  EXPECT_EQ(scan(**it, "cccc", "cccc"), (std::vector<std::string>{"cccc1"}));
  EXPECT_TRUE(scan(**it, "dddd", "dddd1").empty());
  // A target outside the prefix, or a prefix shorter than the scan prefix: refused.
  (*it)->SeekWithin("aaaa", "bbbb1");
  EXPECT_FALSE((*it)->Valid());
  EXPECT_EQ((*it)->status().code(), absl::StatusCode::kInvalidArgument);
  (*it)->SeekWithin("aaa", "aaaa1");
  EXPECT_EQ((*it)->status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scan(**it, "aaaa", "aaaa4"), (std::vector<std::string>{"aaaa4"}));

  // A range cursor: its own range, narrowed to the prefix; a later Seek is not narrowed.
  absl::StatusOr<std::unique_ptr<KvIterator>> range = this->store_->NewIterator("p", "aaaa2", "");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(scan(**range, "aaaa", "aaaa1"), (std::vector<std::string>{"aaaa2", "aaaa3", "aaaa4"}));
  std::vector<std::string> rest;
  for ((*range)->Seek("bbbb3"); (*range)->Valid(); (*range)->Next()) {
    rest.emplace_back((*range)->key());
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"bbbb3", "cccc1"}));
}

TYPED_TEST(KvStoreContract, IteratorSurvivesWritesDuringIteration) {
  for (const char* key : {"a", "b", "c", "d"}) this->Put("a", key, "v");
  absl::StatusOr<std::unique_ptr<KvIterator>> it = this->store_->NewIterator("a", "", "");
  ASSERT_TRUE(it.ok());
  std::vector<std::string> seen;
  for (; (*it)->Valid(); (*it)->Next()) {
    seen.emplace_back((*it)->key());
    WriteBatch batch;
    batch.Delete("a", (*it)->key());  // the cores delete what they just read
    ASSERT_TRUE(this->store_->Write(batch).ok());
  }
  EXPECT_TRUE((*it)->status().ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(Keys(*this->store_, "a", "", "").empty());
}

// ---- RocksDB only ----

RocksDbKvStoreOptions SmallOptions(const std::string& path) {
  RocksDbKvStoreOptions options;
  options.path = path;
  options.write_buffer_bytes = 1 << 20;
  options.block_cache_bytes = 1 << 20;
  return options;
}

TEST(RocksDbKvStore, DataSurvivesReopen) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  {
    auto store = RocksDbKvStore::Open(SmallOptions(path), Families());
    ASSERT_TRUE(store.ok()) << store.status();
    WriteBatch batch;
    batch.Put("a", "memtable-only", "1");  // never flushed: comes back from the log
    ASSERT_TRUE((*store)->Write(batch).ok());
  }
  auto store = RocksDbKvStore::Open(SmallOptions(path), Families());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Get("a", "memtable-only").value(), "1");
}

// Stores given one RocksDbMemory charge their memtables to its one cache, and keep it alive.
TEST(RocksDbKvStore, StoresGivenOneMemoryShareItsCache) {
  TempDir dir;
  absl::StatusOr<std::shared_ptr<RocksDbMemory>> memory =
      RocksDbMemory::Create(size_t{16} << 20, size_t{8} << 20);
  ASSERT_TRUE(memory.ok()) << memory.status();
  std::vector<std::unique_ptr<RocksDbKvStore>> stores;
  for (const char* name : {"/a", "/b"}) {
    RocksDbKvStoreOptions options = SmallOptions(dir.path() + name);
    options.shared_memory = *memory;
    auto store = RocksDbKvStore::Open(options, Families());
    ASSERT_TRUE(store.ok()) << store.status();
    stores.push_back(*std::move(store));
  }
  const std::weak_ptr<RocksDbMemory> held = *memory;
  size_t usage = held.lock()->CacheUsage();
  memory->reset();  // the stores hold it from here on
  const std::string value(1000, 'v');
  for (size_t s = 0; s < stores.size(); ++s) {
    WriteBatch batch;
    for (int i = 0; i < 600; ++i) batch.Put("a", absl::StrCat("key", i), value);
    ASSERT_TRUE(stores[s]->Write(batch).ok());
    const size_t now = held.lock()->CacheUsage();
    EXPECT_GT(now, usage) << "the memtable of store " << s << " is charged to the shared cache";
    usage = now;
  }
  EXPECT_LE(usage, size_t{16} << 20);
  stores.clear();
  EXPECT_TRUE(held.expired());
  EXPECT_EQ(RocksDbMemory::Create(size_t{1} << 19, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Bytes the files under `dir` take on disk (allocated blocks, not their lengths).
uint64_t DiskUsage(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return bytes;
}

// A frontier opens one store per collection: an empty one must cost next to nothing (RocksDB
// preallocates its write-ahead log by the memtable size, 35 MB at the default, by default).
TEST(RocksDbKvStore, AnAlmostEmptyStoreTakesLittleDisk) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  auto store = RocksDbKvStore::Open({.path = path}, Families());
  ASSERT_TRUE(store.ok()) << store.status();
  WriteBatch batch;
  batch.Put("a", "k", "v");
  ASSERT_TRUE((*store)->Write(batch).ok());
  EXPECT_LT(DiskUsage(path), uint64_t{4} << 20);
}

TEST(RocksDbKvStore, UndeclaredFamiliesOnDiskAreKept) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  {
    auto store = RocksDbKvStore::Open(SmallOptions(path), {{"mine", 0}, {"theirs", 0}});
    ASSERT_TRUE(store.ok());
    WriteBatch batch;
    batch.Put("theirs", "k", "v");
    ASSERT_TRUE((*store)->Write(batch).ok());
  }
  {
    auto store = RocksDbKvStore::Open(SmallOptions(path), {{"mine", 0}});
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_FALSE((*store)->HasColumnFamily("theirs"));
  }
  auto store = RocksDbKvStore::Open(SmallOptions(path), {{"mine", 0}, {"theirs", 0}});
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Get("theirs", "k").value(), "v");
}

// A new database is created with all its families in one step; one opened again with more
// declared families (a newer version) gains them and keeps its data.
TEST(RocksDbKvStore, FamiliesDeclaredLaterAreAddedToAnExistingDatabase) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  {
    auto store = RocksDbKvStore::Open(SmallOptions(path), {{"old", 0}, {"older", 0}});
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE((*store)->HasColumnFamily("old"));
    EXPECT_TRUE((*store)->HasColumnFamily("older"));
    WriteBatch batch;
    batch.Put("old", "k", "v");
    ASSERT_TRUE((*store)->Write(batch).ok());
  }
  {
    auto store = RocksDbKvStore::Open(SmallOptions(path), {{"old", 0}, {"new", 4}});
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->HasColumnFamily("new"));
    EXPECT_EQ((*store)->Get("old", "k").value(), "v");
    WriteBatch batch;
    batch.Put("new", "abcd1", "w");
    ASSERT_TRUE((*store)->Write(batch).ok());
  }
  auto store = RocksDbKvStore::Open(SmallOptions(path), {{"old", 0}, {"new", 4}, {"older", 0}});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Get("new", "abcd1").value(), "w");
  EXPECT_EQ((*store)->Get("old", "k").value(), "v");
}

TEST(RocksDbKvStore, SecondOpenOfADirectoryIsUnavailable) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  auto first = RocksDbKvStore::Open(SmallOptions(path), Families());
  ASSERT_TRUE(first.ok());
  auto second = RocksDbKvStore::Open(SmallOptions(path), Families());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
}

// Another process holding the database: the message names it and says what to do, instead of
// RocksDB's "While lock file ... Resource temporarily unavailable".
TEST(RocksDbKvStore, LockHeldByAnotherProcessIsNamed) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  int opened[2], release[2];
  ASSERT_EQ(::pipe(opened), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(release[1]);  // so that the parent's close is the end of the pipe
    auto store = RocksDbKvStore::Open(SmallOptions(path), Families());
    char byte = store.ok() ? 1 : 0;
    if (::write(opened[1], &byte, 1) != 1 || ::read(release[0], &byte, 1) < 0) _exit(1);
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(opened[0], &byte, 1), 1);
  ASSERT_EQ(byte, 1) << "the child could not open the store";
  auto second = RocksDbKvStore::Open(SmallOptions(path), Families());
  ::close(release[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  for (int fd : {opened[0], opened[1], release[0]}) ::close(fd);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
  EXPECT_EQ(second.status().message(),
            absl::StrCat(path, " is in use by another process (pid ", child,
                         "); stop it, or give this one another data directory"));
}

// A directory holding someone else's files is refused and left as it was (no LOG, no LOCK).
TEST(RocksDbKvStore, ForeignDirectoryIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.path() + "/photos";
  std::filesystem::create_directories(path);
  { std::ofstream(path + "/holiday.jpg") << "not a database"; }
  auto store = RocksDbKvStore::Open(SmallOptions(path), Families());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition) << store.status();
  EXPECT_NE(store.status().message().find("is not a database of this crawler (it holds "
                                          "\"holiday.jpg\")"),
            std::string_view::npos)
      << store.status();
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"holiday.jpg"});
}

// A fresh volume's root (lost+found) is not foreign.
TEST(RocksDbKvStore, VolumeRootWithLostAndFoundIsAccepted) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/volume/lost+found");
  EXPECT_TRUE(RocksDbKvStore::Open(SmallOptions(dir.path() + "/volume"), Families()).ok());
}

TEST(RocksDbKvStore, MissingDatabaseWithoutCreateIsAnError) {
  TempDir dir;
  RocksDbKvStoreOptions options = SmallOptions(dir.path() + "/absent");
  options.create_if_missing = false;
  EXPECT_FALSE(RocksDbKvStore::Open(options, Families()).ok());
}

TEST(RocksDbKvStore, RejectsBadOptions) {
  TempDir dir;
  RocksDbKvStoreOptions options = SmallOptions("");
  EXPECT_EQ(RocksDbKvStore::Open(options, Families()).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = SmallOptions(dir.path() + "/db");
  options.bloom_bits_per_key = -1;
  EXPECT_EQ(RocksDbKvStore::Open(options, Families()).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = SmallOptions(dir.path() + "/db");
  EXPECT_EQ(RocksDbKvStore::Open(options, {{"", 0}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RocksDbKvStore, EveryCompressionChoiceOpensOrSaysWhy) {
  using Compression = RocksDbKvStoreOptions::Compression;
  for (Compression c : {Compression::kAuto, Compression::kNone, Compression::kSnappy,
                        Compression::kLz4, Compression::kZstd}) {
    TempDir dir;
    RocksDbKvStoreOptions options = SmallOptions(dir.path() + "/db");
    options.compression = c;
    auto store = RocksDbKvStore::Open(options, Families());
    if (!store.ok()) {
      EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument) << store.status();
    }
  }
  TempDir dir;
  RocksDbKvStoreOptions options = SmallOptions(dir.path() + "/db");
  options.compression = Compression::kAuto;  // must always work
  EXPECT_TRUE(RocksDbKvStore::Open(options, Families()).ok());
}

TEST(RocksDbStatus, TranslatesToCanonicalCodes) {
  struct Case {
    rocksdb::Status in;
    absl::StatusCode want;
  };
  const Case cases[] = {
      {rocksdb::Status::OK(), absl::StatusCode::kOk},
      {rocksdb::Status::NotFound("x"), absl::StatusCode::kNotFound},
      {rocksdb::Status::Corruption("x"), absl::StatusCode::kDataLoss},
      {rocksdb::Status::IOError("x"), absl::StatusCode::kUnavailable},
      {rocksdb::Status::NoSpace("x"), absl::StatusCode::kResourceExhausted},
      {rocksdb::Status::PathNotFound("x"), absl::StatusCode::kNotFound},
      {rocksdb::Status::Busy("x"), absl::StatusCode::kUnavailable},
      {rocksdb::Status::TimedOut("x"), absl::StatusCode::kUnavailable},
      {rocksdb::Status::TryAgain("x"), absl::StatusCode::kUnavailable},
      {rocksdb::Status::ShutdownInProgress("x"), absl::StatusCode::kUnavailable},
      {rocksdb::Status::InvalidArgument("x"), absl::StatusCode::kInvalidArgument},
      {rocksdb::Status::NotSupported("x"), absl::StatusCode::kUnimplemented},
      {rocksdb::Status::Aborted("x"), absl::StatusCode::kAborted},
      {rocksdb::Status::Incomplete("x"), absl::StatusCode::kInternal},
  };
  for (const Case& c : cases) {
    const absl::Status out = ToAbslStatus(c.in, "ctx");
    EXPECT_EQ(out.code(), c.want) << c.in.ToString();
    if (!out.ok()) {
      EXPECT_NE(out.message().find("ctx"), absl::string_view::npos);
    }
  }
}

}  // namespace
}  // namespace crawler::kv
