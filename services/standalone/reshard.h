// A standalone crawl resumed with another partition count (docs/configuration.md
// "partitions"): before the crawl opens its partitions, every host moves from the partition
// that held it to its owner under the new count (Frontier::ExportHost, ImportHost, ForgetHost),
// with its queue in order, its URL records, waiting URLs, counters and controls.
//
// The data dir records its count in DATA_DIR/partitions. A move first writes
// DATA_DIR/partitions.moving ("FROM TO"); a crawl killed during the move finishes it when
// resumed (with the same TO; another count is refused until then), since each host is imported
// whole before the old partition forgets it and an import replays safely. Partitions beyond
// the new count are deleted once empty.
//
// Thread-safety: call before the crawl starts; nothing else may hold the stores.
#ifndef CRAWLER_SERVICES_STANDALONE_RESHARD_H_
#define CRAWLER_SERVICES_STANDALONE_RESHARD_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/log/logger.h"
#include "services/frontier/frontier_config.h"
#include "services/frontier/frontier_options.h"

namespace crawler::standalone {

// Partition k's state directory: DATA_DIR/state for k = 0, DATA_DIR/state-k beyond.
std::filesystem::path PartitionDir(const std::filesystem::path& data_dir, uint32_t k);

struct ReshardOptions {
  std::filesystem::path data_dir;
  int partitions = 1;  // the count the crawl runs with
  // The frontier options of partition k of n (the crawl's, for that layout).
  std::function<frontier::FrontierOptions(uint32_t k, uint32_t n)> options_for;
  // False: the collection's hosts cannot move (a focused collection); a count change is
  // refused naming the reason.
  bool movable = true;
  std::string not_movable_reason;
  // The RocksDB memory the move's stores share (the crawl's).
  frontier::StoreMemoryConfig store_memory;
  Logger log;
};

// Makes the data dir hold `partitions` partitions: records the count in a new data dir,
// checks it in one that kept it, and moves the hosts of one crawled with another (or finishes
// a move cut short). kFailedPrecondition for a change the collection cannot make or a cut move
// resumed with yet another count; kDataLoss for an unreadable count; the stores' errors.
absl::Status EnsurePartitionCount(const ReshardOptions& options);

}  // namespace crawler::standalone

#endif  // CRAWLER_SERVICES_STANDALONE_RESHARD_H_
