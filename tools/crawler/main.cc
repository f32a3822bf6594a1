// `crawler`: standalone crawling and offline inspection. main() only wires subcommands.
#include <CLI/CLI.hpp>

#include "tools/crawler/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"crawler: a polite, adaptive web crawler"};
  app.require_subcommand(1);

  int exit_code = crawler::cli::kExitOk;
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Show what the crawler would do with a URL, robots.txt, page or sitemap");
  inspect->require_subcommand(1);
  crawler::cli::AddInspectUrlCommand(*inspect, &exit_code);
  crawler::cli::AddInspectRobotsCommand(*inspect, &exit_code);
  crawler::cli::AddInspectLinksCommand(*inspect, &exit_code);
  crawler::cli::AddInspectSitemapCommand(*inspect, &exit_code);
  crawler::cli::AddCrawlCommand(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? crawler::cli::kExitOk : crawler::cli::kExitUsage;
  }
  return exit_code;
}
