// WriteBatch: an ordered list of puts and deletes across column families, applied atomically by
// KvStore::Write. A plain value type so cores can build it without any storage library; each
// adapter translates it to its native batch.
//
// Thread-safety: none (a value); build it on one thread, then hand it to the store.
#ifndef CRAWLER_SERVICES_COMMON_KV_WRITE_BATCH_H_
#define CRAWLER_SERVICES_COMMON_KV_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace crawler::kv {

class WriteBatch {
 public:
  enum class OpType : uint8_t { kPut, kDelete };
  struct Op {
    OpType type;
    // Index into column_families(): a batch touches few families, so names are stored once.
    uint32_t cf_index;
    std::string key;
    std::string value;  // empty for kDelete
  };

  void Put(std::string_view cf, std::string_view key, std::string_view value);
  void Delete(std::string_view cf, std::string_view key);
  void Clear();

  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }
  // Sum of key and value sizes: lets a caller cap a batch by bytes.
  size_t payload_bytes() const { return payload_bytes_; }

  // Durable: the store's Write returns only once this batch (and every earlier one) would
  // survive a power loss (RocksDB: the log is fsynced). Off by default: a batch survives the
  // process being killed, not the kernel.
  void set_sync(bool sync) { sync_ = sync; }
  bool sync() const { return sync_; }

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<std::string>& column_families() const { return column_families_; }

 private:
  uint32_t InternColumnFamily(std::string_view cf);

  std::vector<std::string> column_families_;
  std::vector<Op> ops_;
  size_t payload_bytes_ = 0;
  bool sync_ = false;
};

}  // namespace crawler::kv

#endif  // CRAWLER_SERVICES_COMMON_KV_WRITE_BATCH_H_
