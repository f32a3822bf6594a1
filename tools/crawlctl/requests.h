// The requests crawlctl sends, built from its inputs: a collection YAML file (the keys of
// collections::CollectionKeys(), the same `crawler crawl --config` reads) and seed lists. No gRPC
// here: these are pure functions over files, streams and messages, so they are unit-tested
// without a server.
//
// Thread-safety: pure functions; a SeedBatcher belongs to one thread.
#ifndef CRAWLER_TOOLS_CRAWLCTL_REQUESTS_H_
#define CRAWLER_TOOLS_CRAWLCTL_REQUESTS_H_

#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/v1/admin.pb.h"
#include "services/collections/collection.h"

namespace crawler::crawlctl {

// The largest request the scheduler's admin port accepts (docs/api.md).
inline constexpr size_t kServerMaxRequestBytes = size_t{4} << 20;
// What crawlctl puts in one request or stream message at most: half of the server's limit.
inline constexpr size_t kMaxRequestBytes = kServerMaxRequestBytes / 2;

// kInvalidArgument when a request of `bytes` would be over the server's limit (which it would
// answer RESOURCE_EXHAUSTED, after reading it whole): what is too large is the user's input.
absl::Status FitsOneRequest(size_t bytes, std::string_view what);

// A collection as a YAML file defines it, and which of its keys the file set.
struct CollectionFile {
  collections::Collection collection;
  std::vector<std::string> keys;  // in file order
};

// Parses YAML text (a mapping of CollectionKeys()). kInvalidArgument naming the key for an
// unknown key, a key given twice or a bad value; also for a document that is not a mapping.
// `source` names the text in errors (a path, or "-").
absl::StatusOr<CollectionFile> ParseCollectionYaml(std::string_view yaml, std::string_view source);
// The same for a file; kNotFound if it cannot be read.
absl::StatusOr<CollectionFile> LoadCollectionFile(const std::string& path);

// CreateCollectionRequest for a file: it must name the collection and pass
// Collection::Validate (kInvalidArgument naming the first bad field).
absl::StatusOr<v1::CreateCollectionRequest> BuildCreateRequest(const CollectionFile& file);

// The server takes a request of at most 4 MiB (docs/api.md): a create whose seeds pass
// `max_bytes` keeps the first of them (at least one) and returns the others, which go in with
// AddSeeds after the create. kInvalidArgument, the request unchanged, for a same_site_only
// (or focused) collection: its scope's sites are those of the seeds given at creation, so its
// seeds cannot be split; kInvalidArgument too when the definition is over the server's limit
// without its seeds (a huge pattern).
absl::StatusOr<std::vector<std::string>> SplitOffSeeds(v1::CreateCollectionRequest& request,
                                                       size_t max_bytes = kMaxRequestBytes);

// The Collection field path (FieldMask syntax) a YAML key sets, e.g. "min_delay" ->
// "politeness.min_delay"; nullopt for "name" and "seeds" (which an update cannot change) and for
// a key this build does not map.
std::optional<std::string> UpdateMaskPath(std::string_view key);

// UpdateCollectionRequest changing collection `name` to what the file sets: update_mask lists
// the paths of exactly the keys present in the file, so keys the file leaves out keep their
// server-side values. kInvalidArgument for a file whose `name` differs from `name`, a file with
// `seeds` (seeds are added with AddSeeds, never replaced), or a file setting nothing. Not
// validated here: only the server holds the definition the file is merged into (a file setting
// `revisit: true` is valid if the collection already has a budget), so the server's
// Collection::Validate judges the result.
absl::StatusOr<v1::UpdateCollectionRequest> BuildUpdateRequest(std::string_view name,
                                                               const CollectionFile& file);

// Reads a seed list: one URL per line, surrounding whitespace trimmed, blank lines and lines
// starting with '#' skipped. Reads only as far as the next batch needs, so a list of any length
// is streamed in bounded memory. A batch holds at most batch_size seeds and kMaxRequestBytes
// (a longer seed goes alone).
class SeedBatcher {
 public:
  // The server's bound on seeds per AddSeeds message (admin.proto).
  static constexpr size_t kMaxSeedsPerMessage = 10'000;

  // REQUIRES: 1 <= batch_size <= kMaxSeedsPerMessage. `in` must outlive the batcher.
  explicit SeedBatcher(std::istream& in, size_t batch_size = kMaxSeedsPerMessage);

  // The next message of at most batch_size seeds (with `collection` set in every message);
  // nullopt when the input is used up. A stream read error ends the input like EOF; check
  // failed() afterwards.
  std::optional<v1::AddSeedsRequest> Next(const std::string& collection);

  // True if reading stopped on an I/O error rather than at the end of the input.
  bool failed() const { return in_.bad(); }

  // The seeds are sitemaps to read (AddSeedsRequest.sitemaps in every message).
  void set_sitemaps(bool sitemaps) { sitemaps_ = sitemaps; }

 private:
  std::istream& in_;
  const size_t batch_size_;
  bool sitemaps_ = false;
  std::string pending_;  // read, but past the last batch's byte bound
};

// ExplainUrlRequests for `urls`, at most `max_per_request` (the server's bound: 100) each.
std::vector<v1::ExplainUrlRequest> BuildExplainRequests(const std::string& collection,
                                                        const std::vector<std::string>& urls,
                                                        size_t max_per_request = 100);

}  // namespace crawler::crawlctl

#endif  // CRAWLER_TOOLS_CRAWLCTL_REQUESTS_H_
