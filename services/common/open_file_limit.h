// The process's limit on open file descriptors. A crawl keeps a connection per host it cycles
// through (thousands in a polite crawl of many hosts), besides its transfers, RocksDB's files and
// the WARC files, which the usual soft limit of 1,024 does not cover; the hard limit usually does.
//
// Thread-safety: RaiseOpenFileLimit() at start-up, before threads open descriptors; the others
// any time.
#ifndef CRAWLER_SERVICES_COMMON_OPEN_FILE_LIMIT_H_
#define CRAWLER_SERVICES_COMMON_OPEN_FILE_LIMIT_H_

#include <cstddef>

namespace crawler::service {

// Raises the soft RLIMIT_NOFILE to the hard limit. Returns the soft limit in force afterwards.
size_t RaiseOpenFileLimit();

// The soft RLIMIT_NOFILE now (a very large value when unlimited or unknown).
size_t OpenFileLimit();

}  // namespace crawler::service

#endif  // CRAWLER_SERVICES_COMMON_OPEN_FILE_LIMIT_H_
