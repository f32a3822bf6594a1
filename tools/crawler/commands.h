// Subcommands of the `crawler` tool. Each Add*Command registers its options on the given parent
// and a callback that stores the process exit code in *exit_code. Output formats of the inspect
// family are a contract other tools rely on (README, "crawler inspect").
#ifndef CRAWLER_TOOLS_CRAWLER_COMMANDS_H_
#define CRAWLER_TOOLS_CRAWLER_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace crawler::cli {

// Exit codes shared by all subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the input was examined and rejected (e.g. invalid URL)
inline constexpr int kExitUsage = 2;    // bad flags, unreadable file

void AddInspectUrlCommand(CLI::App& inspect, int* exit_code);
void AddInspectRobotsCommand(CLI::App& inspect, int* exit_code);
void AddInspectLinksCommand(CLI::App& inspect, int* exit_code);
void AddInspectSitemapCommand(CLI::App& inspect, int* exit_code);
void AddInspectPartitionCommand(CLI::App& inspect, int* exit_code);
// `crawler crawl` (crawl_command.cc).
void AddCrawlCommand(CLI::App& app, int* exit_code);
// `crawler export links|domains|unresolved|rewards` (export_command.cc).
void AddExportCommand(CLI::App& app, int* exit_code);
// `crawler warc verify|index|wacz` (warc_verify.cc, warc_index.cc, warc_wacz.cc).
void AddWarcCommand(CLI::App& app, int* exit_code);
void AddWarcIndexCommand(CLI::App& warc, int* exit_code);
void AddWarcWaczCommand(CLI::App& warc, int* exit_code);

}  // namespace crawler::cli

#endif  // CRAWLER_TOOLS_CRAWLER_COMMANDS_H_
