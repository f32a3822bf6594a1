// `crawler warc verify`: checks WARC files end to end (lib/warc/warc_verifier.h) -- every gzip
// member complete and uncorrupted, every record well formed, every SHA-1 block and payload
// digest matching -- and CDXJ indexes against the WARC files they name
// (lib/warc/cdxj_verifier.h).
//
//   crawler warc verify [--warc-dir DIR] FILE...
//
// One line per file on stdout:
//   FILE: OK, <records> records, <n> block digests and <m> payload digests checked
//   FILE: DAMAGED at offset <offset>: <reason> (after <records> intact records)
// ("; <k> digests of other algorithms not checked" is added when there are such.) A FILE ending
// in ".cdxj" is an index, checked against the WARC files its lines name (looked up in DIR, by
// default the index's directory):
//   FILE: OK, <lines> lines match <n> WARC files
//   FILE: WRONG: <reason>
// followed by one indented line per problem found (the first 20): a line missing, or a wrong
// line and what the WARC holds at its offset. Exit 0 when every file is intact; 1 when any is
// damaged or wrong; 2 for bad flags or a file that cannot be opened (its line says "FILE:
// cannot read: <reason>").
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "lib/warc/cdxj_verifier.h"
#include "lib/warc/warc_verifier.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

// Checks one CDXJ index; returns the exit code for it.
int VerifyIndex(const std::string& file, const std::string& warc_dir) {
  const warc::CdxjVerifyReport report = warc::VerifyCdxjIndex(file, {.warc_dir = warc_dir});
  std::cout << file << ": ";
  int rc = kExitOk;
  if (absl::IsNotFound(report.status)) {
    std::cout << "cannot read: " << report.status.message() << "\n";
    rc = kExitUsage;
  } else if (report.status.ok()) {
    std::cout << "OK, " << report.lines << " lines match " << report.warc_files << " WARC files\n";
  } else {
    std::cout << "WRONG: " << report.status.message() << "\n";
    rc = kExitFailure;
  }
  for (const std::string& problem : report.problems) std::cout << "  " << problem << "\n";
  return rc;
}

int RunWarcVerify(const std::vector<std::string>& files, const std::string& warc_dir) {
  int rc = kExitOk;
  for (const std::string& file : files) {
    if (absl::EndsWith(file, ".cdxj")) {
      rc = std::max(rc, VerifyIndex(file, warc_dir));  // a read failure (2) outranks damage (1)
      continue;
    }
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
  CLI::App* warc = app.add_subcommand("warc", "Work with WARC files, their indexes and packages");
  warc->require_subcommand(1);
  struct Args {
    std::vector<std::string> files;
    std::string warc_dir;
  };
  auto args = std::make_shared<Args>();
  CLI::App* verify = warc->add_subcommand(
      "verify",
      "Read every record of WARC files, check gzip members and digests, report damage; check "
      "CDXJ indexes against their WARC files");
  verify
      ->add_option("files", args->files, "WARC files (.warc.gz or .warc) and CDXJ indexes (.cdxj)")
      ->required();
  verify->add_option("--warc-dir", args->warc_dir,
                     "Where an index's WARC files are (default: the index's directory)");
  verify->callback([args, exit_code] { *exit_code = RunWarcVerify(args->files, args->warc_dir); });
  AddWarcIndexCommand(*warc, exit_code);
  AddWarcWaczCommand(*warc, exit_code);
}

}  // namespace crawler::cli
