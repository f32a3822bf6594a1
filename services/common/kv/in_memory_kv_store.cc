#include "services/common/kv/in_memory_kv_store.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "lib/encoding/absl_view.h"

namespace crawler::kv {
namespace {

// Debian's abseil keeps its own string_view type; hashed lookups and StrCat need it.
using encoding::AsAbsl;

absl::Status UnknownFamily(std::string_view cf) {
  return absl::InvalidArgumentError(absl::StrCat("unknown column family '", AsAbsl(cf), "'"));
}

}  // namespace

// Holds a copy of the current entry and re-seeks under the store's mutex on Next(), so writes
// between steps never invalidate it. A prefix cursor sets its range [target, successor) on Seek.
class InMemoryKvStore::Iterator final : public KvIterator {
 public:
  // A cursor over [begin, end), positioned on its first key.
  Iterator(const InMemoryKvStore* store, const Table* table, std::string_view begin,
           std::string_view end)
      : store_(store), table_(table), begin_(begin), range_end_(end), end_(end) {
    absl::MutexLock lock(&store_->mu_);
    Load(table_->lower_bound(begin_));
  }
  // A prefix cursor (NewPrefixIterator): unpositioned until the first Seek.
  Iterator(const InMemoryKvStore* store, const Table* table, size_t scan_prefix_bytes)
      : store_(store), table_(table), prefix_mode_(true), scan_prefix_bytes_(scan_prefix_bytes) {}

  void Seek(std::string_view target) override {
    if (prefix_mode_) return SeekWithin(target, target);
    status_ = absl::OkStatus();
    end_ = range_end_;
    absl::MutexLock lock(&store_->mu_);
    Load(table_->lower_bound(std::max(target, std::string_view(begin_))));
  }
  void SeekWithin(std::string_view prefix, std::string_view target) override {
    status_ = absl::OkStatus();
    if (!target.starts_with(prefix) || (prefix_mode_ && prefix.size() < scan_prefix_bytes_)) {
      valid_ = false;
      status_ = absl::InvalidArgumentError("prefix seek outside the scan prefix");
      return;
    }
    if (prefix_mode_) {
      begin_ = prefix;
      end_ = PrefixSuccessor(prefix);
    } else {
      // A range cursor keeps its own range, narrowed to the prefix.
      const std::string prefix_end = PrefixSuccessor(prefix);
      end_ = range_end_;
      if (!prefix_end.empty() && (end_.empty() || prefix_end < end_)) end_ = prefix_end;
    }
    absl::MutexLock lock(&store_->mu_);
    Load(table_->lower_bound(std::max(target, std::string_view(begin_))));
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    absl::MutexLock lock(&store_->mu_);
    Load(table_->upper_bound(key_));
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  absl::Status status() const override { return status_; }

 private:
  void Load(Table::const_iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(store_->mu_) {
    valid_ = it != table_->end() && (end_.empty() || it->first < end_);
    if (valid_) {
      key_ = it->first;
      value_ = it->second;
    }
  }

  const InMemoryKvStore* store_;
  const Table* table_;
  const bool prefix_mode_ = false;
  const size_t scan_prefix_bytes_ = 0;
  std::string begin_;
  const std::string range_end_;  // a range cursor's end, as made
  std::string end_;              // empty: to the end of the family
  bool valid_ = false;
  absl::Status status_;
  std::string key_;
  std::string value_;
};

InMemoryKvStore::InMemoryKvStore(const std::vector<ColumnFamilySpec>& column_families) {
  absl::MutexLock lock(&mu_);
  for (const ColumnFamilySpec& spec : column_families) {
    auto& table = tables_[spec.name];
    if (table == nullptr) table = std::make_unique<Table>();
    scan_prefix_bytes_[spec.name] = spec.scan_prefix_bytes;
  }
}

bool InMemoryKvStore::HasColumnFamily(std::string_view cf) const {
  absl::MutexLock lock(&mu_);
  return tables_.contains(AsAbsl(cf));
}

absl::StatusOr<std::string> InMemoryKvStore::Get(std::string_view cf, std::string_view key) const {
  absl::MutexLock lock(&mu_);
  auto table = tables_.find(AsAbsl(cf));
  if (table == tables_.end()) return UnknownFamily(cf);
  auto it = table->second->find(key);
  if (it == table->second->end()) return absl::NotFoundError("key not found");
  return it->second;
}

absl::StatusOr<std::vector<std::optional<std::string>>> InMemoryKvStore::MultiGet(
    std::string_view cf, const std::vector<std::string>& keys) const {
  absl::MutexLock lock(&mu_);
  auto table = tables_.find(AsAbsl(cf));
  if (table == tables_.end()) return UnknownFamily(cf);
  std::vector<std::optional<std::string>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) {
    auto it = table->second->find(key);
    if (it == table->second->end()) {
      values.emplace_back(std::nullopt);
    } else {
      values.emplace_back(it->second);
    }
  }
  return values;
}

absl::Status InMemoryKvStore::Write(const WriteBatch& batch) {
  absl::MutexLock lock(&mu_);
  // Resolve every family first so a bad batch changes nothing (atomicity).
  std::vector<Table*> tables;
  tables.reserve(batch.column_families().size());
  for (const std::string& cf : batch.column_families()) {
    auto table = tables_.find(AsAbsl(cf));
    if (table == tables_.end()) return UnknownFamily(cf);
    tables.push_back(table->second.get());
  }
  for (const WriteBatch::Op& op : batch.ops()) {
    Table& table = *tables[op.cf_index];
    if (op.type == WriteBatch::OpType::kPut) {
      table.insert_or_assign(op.key, op.value);
    } else {
      auto it = table.find(op.key);
      if (it != table.end()) table.erase(it);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<KvIterator>> InMemoryKvStore::NewIterator(
    std::string_view cf, std::string_view begin, std::string_view end) const {
  const Table* table = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = tables_.find(AsAbsl(cf));
    if (it == tables_.end()) return UnknownFamily(cf);
    table = it->second.get();
  }
  return std::make_unique<Iterator>(this, table, begin, end);
}

absl::StatusOr<std::unique_ptr<KvIterator>> InMemoryKvStore::NewPrefixIterator(
    std::string_view cf) const {
  const Table* table = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = tables_.find(AsAbsl(cf));
    if (it == tables_.end()) return UnknownFamily(cf);
    table = it->second.get();
  }
  return std::make_unique<Iterator>(this, table, scan_prefix_bytes_.at(AsAbsl(cf)));
}

size_t InMemoryKvStore::CountKeys(std::string_view cf) const {
  absl::MutexLock lock(&mu_);
  auto it = tables_.find(AsAbsl(cf));
  return it == tables_.end() ? 0 : it->second->size();
}

}  // namespace crawler::kv
