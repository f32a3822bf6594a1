// LinkLedger: the LinkSink of a standalone crawl. It appends every fetched HTML page's links to
// one file (<data_dir>/links.tsv; format in docs/focused.md, "Where links are stored") and keeps
// the set of external targets seen so far, so a link counts once per collection. The file is
// what `crawler export links|domains|rewards` read; ReadLinkLedger is its reader.
//
// Why a file of its own rather than the WARC metadata records: those list only the outlinks the
// crawl follows (in scope, canonical), without anchor texts, and exist only when bodies are
// stored; a focused collection wants exactly the links it does not follow. Why not a RocksDB
// column family: the data is append-only and read whole by the exports, and a text file can be
// read with any tool.
//
// "External": another registrable domain (Public Suffix List) than the page's, or with
// by_host, another host. The seen set is in memory (one string per distinct external target, so
// it grows with the links a collection finds, which its page budget bounds); Open rebuilds it
// from the file, so a resumed crawl keeps counting each link once. With a shared seen set
// (`mark_seen`: the distributed crawl's fetchers each keep a ledger of their own, and the dedup
// service keeps the collection's one set, Dedup::MarkLinksSeen) the ledger asks it once per page
// instead; a page whose call fails earns 0 and is counted (seen_set_failures), its links are
// still written.
//
// Durability: each page is one write, flushed to the kernel; after a crash the file may end in a
// partial page, which the reader skips (and Open truncates away).
//
// Thread-safety: RecordPage is thread-safe (one mutex around the set and the write).
#ifndef CRAWLER_SERVICES_FETCHER_LINK_LEDGER_H_
#define CRAWLER_SERVICES_FETCHER_LINK_LEDGER_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/url/public_suffix_list.h"
#include "services/fetcher/link_sink.h"

namespace crawler::fetcher {

// One page of the ledger.
struct LedgerPage {
  std::string url;
  uint32_t depth = 0;
  uint32_t new_external_links = 0;  // the reward the page earned when it was recorded
  struct Link {
    std::string target;  // canonical URL
    bool external = false;
    std::string anchor_text;
  };
  std::vector<Link> links;
  struct Unresolved {
    std::string reason;  // html::UnresolvedRef::reason
    std::string value;
  };
  std::vector<Unresolved> unresolved;
};

// Calls `visit` for every complete page of the ledger at `path`, in the order recorded; a
// partial page at the end (a crash mid-write) is skipped. kNotFound if the file cannot be
// opened, kDataLoss for a malformed line before the end.
absl::Status ReadLinkLedger(const std::string& path,
                            const std::function<void(const LedgerPage&)>& visit);

class LinkLedger : public LinkSink {
 public:
  // A seen set shared with other ledgers: marks the keys (canonical external targets) seen and
  // returns, per key, whether it was fresh. Called once per page with its external targets, from
  // worker threads at once, outside the ledger's lock.
  using MarkSeen =
      std::function<absl::StatusOr<std::vector<bool>>(const std::vector<std::string>& keys)>;

  // Opens (creating it) the ledger at `path` and rebuilds the seen set from it (without
  // `mark_seen`; with it the shared set decides what is fresh). `psl` must outlive the ledger;
  // it is not used with by_host. kUnavailable if the file cannot be opened or written,
  // kDataLoss as ReadLinkLedger.
  static absl::StatusOr<std::unique_ptr<LinkLedger>> Open(const std::string& path,
                                                          const url::PublicSuffixList* psl,
                                                          bool by_host, MarkSeen mark_seen = {});
  ~LinkLedger() override;

  uint32_t RecordPage(const PageLinks& page) override;

  // Distinct external targets seen (with a shared set: those this ledger found fresh), pages
  // whose record could not be written, and pages whose shared-set call failed.
  uint64_t external_links_seen() const;
  uint64_t write_failures() const;
  uint64_t seen_set_failures() const;

 private:
  LinkLedger(std::FILE* file, const url::PublicSuffixList* psl, bool by_host, MarkSeen mark_seen);
  bool IsExternal(const url::Url& page, const url::Url& target) const;

  const url::PublicSuffixList* const psl_;
  const bool by_host_;
  const MarkSeen mark_seen_;
  mutable absl::Mutex mu_;
  std::FILE* const file_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> seen_external_ ABSL_GUARDED_BY(mu_);
  uint64_t write_failures_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t fresh_shared_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t seen_set_failures_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_LINK_LEDGER_H_
