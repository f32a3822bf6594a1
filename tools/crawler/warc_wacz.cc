// `crawler warc wacz`: packages WARC files as a WACZ 1.1.1 file for ReplayWeb.page and pywb
// (lib/wacz/wacz_builder.h).
//
//   crawler warc wacz --collection NAME [-o NAME.wacz] [--index-form auto|cdxj|compressed]
//                     DIR_OR_FILE...
//
// A DIR stands for the *.warc.gz and *.warc files directly in it, in name order; files still
// being written (*.open) are left out and named on stderr. NAME is the package's title and,
// without -o, its file name. On success one line on stdout:
//   NAME.wacz: <n> WARC files, <records> records, <lines> index lines (<form>), <pages> pages
//   (<seeds> seeds), <bytes> bytes
// Exit 0 when the package was written; 1 when an input cannot be packaged (stderr says which
// and why; nothing is written); 2 for bad flags or an input that cannot be read.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "lib/wacz/wacz_builder.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct WaczArgs {
  std::string collection;
  std::string output;
  std::string index_form = "auto";
  std::vector<std::string> inputs;
};

// The WARC files of the inputs, directories expanded; false (reported) for one that is missing.
bool ExpandInputs(const std::vector<std::string>& inputs, std::vector<std::string>& files) {
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) {
      if (!std::filesystem::exists(input, ec)) {
        std::cerr << "crawler warc wacz: " << input << ": no such file or directory\n";
        return false;
      }
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
      const std::string name = entry.path().filename().string();
      if (absl::EndsWith(name, ".open")) {
        std::cerr << "crawler warc wacz: left out " << entry.path().string()
                  << " (still being written)\n";
      } else if (absl::EndsWith(name, ".warc.gz") || absl::EndsWith(name, ".warc")) {
        found.push_back(entry.path().string());
      }
    }
    if (ec) {
      std::cerr << "crawler warc wacz: cannot list " << input << ": " << ec.message() << "\n";
      return false;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return true;
}

const char* FormName(wacz::IndexForm form) {
  return form == wacz::IndexForm::kCompressed ? "compressed: index.cdx.gz + index.idx"
                                              : "index.cdxj";
}

int RunWacz(const WaczArgs& args) {
  wacz::WaczOptions options;
  if (!ExpandInputs(args.inputs, options.warc_files)) return kExitUsage;
  if (options.warc_files.empty()) {
    std::cerr << "crawler warc wacz: no WARC files in the inputs\n";
    return kExitUsage;
  }
  options.output = args.output.empty() ? args.collection + ".wacz" : args.output;
  options.title = args.collection;
  options.software = "crawler " CRAWLER_VERSION;
  options.created = absl::Now();
  options.index_form = args.index_form == "cdxj"         ? wacz::IndexForm::kCdxj
                       : args.index_form == "compressed" ? wacz::IndexForm::kCompressed
                                                         : wacz::IndexForm::kAuto;
  absl::StatusOr<wacz::WaczReport> report = wacz::BuildWacz(options);
  if (!report.ok()) {
    std::cerr << "crawler warc wacz: " << report.status().message() << " (" << options.output
              << " not written)\n";
    return absl::IsNotFound(report.status()) ? kExitUsage : kExitFailure;
  }
  std::cout << options.output << ": " << report->warc_files << " WARC files, " << report->records
            << " records, " << report->index_lines << " index lines ("
            << FormName(report->index_form) << "), " << report->pages << " pages (" << report->seeds
            << " seeds), " << report->bytes << " bytes\n";
  return kExitOk;
}

}  // namespace

void AddWarcWaczCommand(CLI::App& warc, int* exit_code) {
  auto args = std::make_shared<WaczArgs>();
  CLI::App* wacz =
      warc.add_subcommand("wacz", "Package WARC files as a WACZ 1.1.1 file (ReplayWeb.page, pywb)");
  wacz->add_option("inputs", args->inputs, "WARC files, or directories of them")->required();
  wacz->add_option("--collection", args->collection, "The collection's name (the package title)")
      ->required();
  wacz->add_option("-o,--output", args->output, "The package (default: COLLECTION.wacz)");
  wacz->add_option("--index-form", args->index_form,
                   "auto (compressed from 10,000 lines), cdxj or compressed")
      ->check(CLI::IsMember({"auto", "cdxj", "compressed"}));
  wacz->callback([args, exit_code] { *exit_code = RunWacz(*args); });
}

}  // namespace crawler::cli
