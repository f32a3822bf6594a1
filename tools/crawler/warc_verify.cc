// `crawler warc verify`: checks WARC files end to end (lib/warc/warc_verifier.h) -- every gzip
// member complete and uncorrupted, every record well formed, every SHA-1 block and payload
// digest matching.
//
//   crawler warc verify FILE...
//
// One line per file on stdout:
//   FILE: OK, <records> records, <n> block digests and <m> payload digests checked
//   FILE: DAMAGED at offset <offset>: <reason> (after <records> intact records)
// ("; <k> digests of other algorithms not checked" is added when there are such.) Exit 0 when
// every file is intact; 1 when any is damaged; 2 for bad flags or a file that cannot be opened
// (its line says "FILE: cannot read: <reason>").
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/warc/warc_verifier.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

int RunWarcVerify(const std::vector<std::string>& files) {
  int rc = kExitOk;
  for (const std::string& file : files) {
    const warc::WarcVerifyReport report = warc::VerifyWarcFile(file);
    std::cout << file << ": ";
    if (absl::IsNotFound(report.status)) {
      std::cout << "cannot read: " << report.status.message() << "\n";
      rc = kExitUsage;
      continue;
    }
    if (report.status.ok()) {
      std::cout << "OK, " << report.records << " records, " << report.block_digests
                << " block digests and " << report.payload_digests << " payload digests checked";
    } else {
      std::cout << "DAMAGED at offset " << report.bad_offset << ": " << report.status.message()
                << " (after " << report.records << " intact records)";
      if (rc == kExitOk) rc = kExitFailure;
    }
    if (report.unchecked_digests > 0) {
      std::cout << "; " << report.unchecked_digests << " digests of other algorithms not checked";
    }
    std::cout << "\n";
  }
  return rc;
}

}  // namespace

void AddWarcCommand(CLI::App& app, int* exit_code) {
  CLI::App* warc = app.add_subcommand("warc", "Work with WARC files");
  warc->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* verify = warc->add_subcommand(
      "verify", "Read every record of WARC files, check gzip members and digests, report damage");
  verify->add_option("files", *files, "WARC files (.warc.gz or .warc)")->required();
  verify->callback([files, exit_code] { *exit_code = RunWarcVerify(*files); });
}

}  // namespace crawler::cli
