// CountingKvStore: a KvStore decorator for frontier tests that counts writes, MultiGet keys and
// range cursors, and can make writes fail, to check "one batch per call", "a failed write changes
// nothing", "a seen-cache hit costs no store read" and "nothing due, no scan".
#ifndef CRAWLER_TESTS_UNIT_FRONTIER_COUNTING_KV_STORE_H_
#define CRAWLER_TESTS_UNIT_FRONTIER_COUNTING_KV_STORE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"

namespace crawler::kv {

class CountingKvStore final : public KvStore {
 public:
  explicit CountingKvStore(KvStore& inner) : inner_(inner) {}

  // Every later Write fails with `status` (OK: writes succeed again).
  void FailWritesWith(absl::Status status) { write_error_ = std::move(status); }
  int writes() const { return writes_; }
  // Keys asked for by MultiGet in `cf` since the store was made.
  size_t multiget_keys(std::string_view cf) const {
    auto it = multiget_keys_.find(std::string(cf));
    return it == multiget_keys_.end() ? 0 : it->second;
  }
  // Range cursors (NewIterator) opened on `cf` since the store was made.
  size_t iterators(std::string_view cf) const {
    auto it = iterators_.find(std::string(cf));
    return it == iterators_.end() ? 0 : it->second;
  }

  bool HasColumnFamily(std::string_view cf) const override { return inner_.HasColumnFamily(cf); }
  absl::StatusOr<std::string> Get(std::string_view cf, std::string_view key) const override {
    return inner_.Get(cf, key);
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      std::string_view cf, const std::vector<std::string>& keys) const override {
    multiget_keys_[std::string(cf)] += keys.size();
    return inner_.MultiGet(cf, keys);
  }
  absl::Status Write(const WriteBatch& batch) override {
    ++writes_;
    if (!write_error_.ok()) return write_error_;
    return inner_.Write(batch);
  }
  absl::StatusOr<std::unique_ptr<KvIterator>> NewIterator(std::string_view cf,
                                                          std::string_view begin,
                                                          std::string_view end) const override {
    ++iterators_[std::string(cf)];
    return inner_.NewIterator(cf, begin, end);
  }
  absl::StatusOr<std::unique_ptr<KvIterator>> NewPrefixIterator(
      std::string_view cf) const override {
    return inner_.NewPrefixIterator(cf);
  }

 private:
  KvStore& inner_;
  absl::Status write_error_;
  int writes_ = 0;
  mutable std::map<std::string, size_t> multiget_keys_;
  mutable std::map<std::string, size_t> iterators_;
};

}  // namespace crawler::kv

#endif  // CRAWLER_TESTS_UNIT_FRONTIER_COUNTING_KV_STORE_H_
