// `crawlctl archive list COLLECTION` and `crawlctl archive pull COLLECTION DIR [--wacz]`
// (docs/archive.md, docs/crawlctl.md): a collection's finished WARC files and CDXJ indexes on
// every fetcher, listed, or gathered through the scheduler's ArchiveAdmin service into DIR
// and packaged as a WACZ file at once.
//
// `list` prints, per fetcher, its files (name, bytes, SHA-256) and those still being written,
// then the partitions without a fetcher (or the reply as JSON with --json); exit 0, or 1 when
// a fetcher could not be asked or a partition has none.
//
// Each file is fetched into "DIR/NAME.part", resumed from the bytes already there when a
// transfer breaks or the command is run again, checked against the SHA-256 the listing gives,
// and only then renamed to "DIR/NAME"; a file already in DIR with that digest is not fetched
// again. A broken transfer is retried (resuming) up to `attempts` times with growing pauses; a
// fetcher the scheduler no longer knows is looked for again by listing anew. Files still being written
// and partitions with no fetcher reporting are named on stderr: the pull gets what is finished
// now and says what it left out.
//
// Output: one line per file fetched ("NAME: N bytes from fetcher P (ADDRESS)"), then a summary.
// Exit codes: 0 when every finished file was pulled (files still being written are not an
// error); 1 when a file could not be pulled or failed its digest, a fetcher could not be asked
// or a partition had no fetcher, or the WACZ could not be built; the session's codes for the
// scheduler itself (3 unreachable, 4 token refused, 2 bad arguments).
//
// Thread-safety: one thread.
#ifndef CRAWLER_TOOLS_CRAWLCTL_ARCHIVE_PULL_H_
#define CRAWLER_TOOLS_CRAWLCTL_ARCHIVE_PULL_H_

#include <string>

#include "absl/time/time.h"
#include "tools/crawlctl/commands.h"

namespace crawler::crawlctl {

struct PullOptions {
  std::string collection;
  std::string dir;
  // Build a WACZ of the pulled WARC files: to wacz_path (default DIR/COLLECTION.wacz).
  bool wacz = false;
  std::string wacz_path;
  // "auto", "cdxj" or "compressed" (lib/wacz/wacz_builder.h IndexForm).
  std::string index_form = "auto";
  // Tries per file before giving up, and the first pause between them (doubled each time).
  int attempts = 5;
  absl::Duration retry_pause = absl::Seconds(1);
  // Deadline of the listing (a fetcher's first listing reads its files for their digests) and
  // of one file's transfer.
  absl::Duration list_timeout = absl::Minutes(10);
  absl::Duration transfer_timeout = absl::Hours(1);
};

int ListArchive(Session& session, const std::string& collection,
                absl::Duration timeout = absl::Minutes(10));
int PullArchive(Session& session, const PullOptions& options);

}  // namespace crawler::crawlctl

#endif  // CRAWLER_TOOLS_CRAWLCTL_ARCHIVE_PULL_H_
