#include "services/common/kv/write_batch.h"

#include <string>
#include <string_view>

namespace crawler::kv {

uint32_t WriteBatch::InternColumnFamily(std::string_view cf) {
  // A linear search: batches name a handful of families.
  for (uint32_t i = 0; i < column_families_.size(); ++i) {
    if (column_families_[i] == cf) return i;
  }
  column_families_.emplace_back(cf);
  return static_cast<uint32_t>(column_families_.size() - 1);
}

void WriteBatch::Put(std::string_view cf, std::string_view key, std::string_view value) {
  ops_.push_back(Op{OpType::kPut, InternColumnFamily(cf), std::string(key), std::string(value)});
  payload_bytes_ += key.size() + value.size();
}

void WriteBatch::Delete(std::string_view cf, std::string_view key) {
  ops_.push_back(Op{OpType::kDelete, InternColumnFamily(cf), std::string(key), std::string()});
  payload_bytes_ += key.size();
}

void WriteBatch::Clear() {
  column_families_.clear();
  ops_.clear();
  payload_bytes_ = 0;
  sync_ = false;
}

}  // namespace crawler::kv
