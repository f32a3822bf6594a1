// VerifyCdxjIndex: checks a CDXJ index (cdxj.h) against the WARC files it names, for
// `crawler warc verify`.
//
// An index is right when its lines are sorted (bytewise) and are exactly the lines the indexer
// (cdxj_indexer.h) makes of those WARC files: no line missing, none extra, none different. The
// WARC files are indexed afresh (one read of each, memory bounded by the external sort) and
// the two sorted line sequences compared. A line that is not among the expected ones is
// explained from the WARC at its offset -- no record begins there, the record there is of
// another URL or date, it runs past the line's length -- so a wrong offset is reported as such.
//
// Thread-safety: a pure function of the files.
#ifndef CRAWLER_LIB_WARC_CDXJ_VERIFIER_H_
#define CRAWLER_LIB_WARC_CDXJ_VERIFIER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace crawler::warc {

struct CdxjVerifyOptions {
  // Where the WARC files named in the index are looked up: the index's directory when empty.
  std::string warc_dir;
  // Where sorting spills (the index's directory when empty).
  std::string temp_dir;
  // Problems described in full; the rest are counted.
  size_t max_problems = 20;
};

struct CdxjVerifyReport {
  uint64_t lines = 0;                 // lines of the index
  uint64_t warc_files = 0;            // WARC files it names, read
  uint64_t missing = 0;               // expected lines not in the index
  uint64_t unexpected = 0;            // index lines not expected (wrong, or of no record)
  std::vector<std::string> problems;  // the first max_problems, one sentence each
  // OK; kDataLoss when the index is wrong (unsorted, a line that does not parse, missing or
  // unexpected lines); kNotFound when the index or a WARC it names cannot be read; a WARC's own
  // damage as IndexWarcFile reports it.
  absl::Status status;
};

CdxjVerifyReport VerifyCdxjIndex(const std::string& cdxj_path, const CdxjVerifyOptions& options);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_CDXJ_VERIFIER_H_
