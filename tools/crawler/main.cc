// `crawler`: standalone crawling and offline inspection. main() only wires subcommands.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>

#include "services/common/open_file_limit.h"
#include "tools/crawler/commands.h"

#ifdef CRAWLER_MIMALLOC
#include <mimalloc.h>
#endif

namespace {

// The allocator malloc() really uses. With mimalloc linked, a block from calloc() must lie in
// mimalloc's heap; if it does not, the link order let glibc's malloc win and this says so.
std::string AllocatorName() {
#ifdef CRAWLER_MIMALLOC
  void* block = std::calloc(1, 64);
  const bool in_use = mi_is_in_heap_region(block);
  std::free(block);
  const int v = mi_version();  // e.g. 209 for 2.0.9
  const std::string version =
      std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
  return in_use ? "mimalloc " + version : "system malloc (mimalloc " + version + " linked, unused)";
#else
  return "system malloc";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // A crawl of many hosts keeps a connection to each: more than the usual soft limit of 1,024.
  crawler::service::RaiseOpenFileLimit();
  CLI::App app{"crawler: a polite, adaptive web crawler"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       [] { return "crawler " CRAWLER_VERSION "\nallocator: " + AllocatorName(); });

  int exit_code = crawler::cli::kExitOk;
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Show what the crawler would do with a URL, robots.txt, page or sitemap");
  inspect->require_subcommand(1);
  crawler::cli::AddInspectUrlCommand(*inspect, &exit_code);
  crawler::cli::AddInspectRobotsCommand(*inspect, &exit_code);
  crawler::cli::AddInspectLinksCommand(*inspect, &exit_code);
  crawler::cli::AddInspectSitemapCommand(*inspect, &exit_code);
  crawler::cli::AddInspectPartitionCommand(*inspect, &exit_code);
  crawler::cli::AddCrawlCommand(app, &exit_code);
  crawler::cli::AddWarcCommand(app, &exit_code);
  crawler::cli::AddExportCommand(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? crawler::cli::kExitOk : crawler::cli::kExitUsage;
  }
  return exit_code;
}
