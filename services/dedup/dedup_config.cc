#include "services/dedup/dedup_config.h"

namespace crawler::dedup {

const config::KeyTable<DedupOptions>& DedupKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<DedupOptions>;
    t->Add({"near_duplicate_bits", "--near-duplicate-bits",
            "SimHash bits two near-duplicates may differ in, 0..3 (0: exact copies only)"},
           &DedupOptions::near_duplicate_bits);
    return t;
  }();
  return *table;
}

}  // namespace crawler::dedup
