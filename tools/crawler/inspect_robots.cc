// `crawler inspect robots`: what a robots.txt file says about URLs for one crawler (RFC 9309,
// lib/robots).
//
//   crawler inspect robots --file PATH --agent TOKEN URL...
//
// One line per URL, in the order given, fields separated by one TAB:
//   allowed|disallowed  URL  [RULE  (line N)]
// RULE is the deciding rule as written in the file ("Disallow: /private"); the last two fields
// are absent when no rule matched (allowed), for /robots.txt itself (always allowed), and
// nothing else prints on stdout. URL is echoed as given; only its path and query are matched.
// Exit 0 on success; 1 if some URL was neither absolute ("scheme://...") nor a path starting
// with "/" (reported on stderr as "invalid URL: ...", no stdout line for it; the others are
// still printed); 2 for bad flags or an unreadable file.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/robots/robots_parser.h"
#include "lib/robots/robots_rules.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct InspectRobotsArgs {
  std::string file;
  std::string agent;
  std::vector<std::string> urls;
};

constexpr char kFormatHelp[] =
    "Output: one line per URL, in the order given, fields separated by one TAB:\n"
    "  allowed|disallowed <TAB> URL [<TAB> RULE <TAB> (line N)]\n"
    "RULE is the deciding rule as written in the file, e.g. \"Disallow: /private\", and N its\n"
    "line number; both are absent when no rule matched or for /robots.txt (always allowed).\n"
    "Matching follows RFC 9309: groups naming the agent's product token (case-insensitive),\n"
    "else the '*' groups; longest pattern wins, Allow wins ties. Only the first 512000 bytes\n"
    "of the file are parsed (a note on stderr says when more were ignored).\n"
    "Exit: 0 ok; 1 some URL invalid (\"invalid URL: ...\" on stderr, no line for it);\n"
    "2 bad flags or unreadable file.\n";

int RunInspectRobots(const InspectRobotsArgs& args) {
  std::error_code error;
  std::ifstream in;
  if (!std::filesystem::is_directory(args.file, error)) in.open(args.file, std::ios::binary);
  if (!in.is_open()) {
    std::cerr << "cannot read robots.txt file: " << args.file << "\n";
    return kExitUsage;
  }
  std::ostringstream body;
  body << in.rdbuf();
  if (in.bad()) {
    std::cerr << "cannot read robots.txt file: " << args.file << "\n";
    return kExitUsage;
  }
  const robots::RobotsRules rules = robots::RobotsRules::Parse(body.str());
  if (rules.ignored_bytes() > 0) {
    std::cerr << "note: " << args.file << ": only the first " << robots::kRobotsParseLimitBytes
              << " bytes are parsed (RFC 9309 section 2.5); " << rules.ignored_bytes()
              << " bytes ignored\n";
  }

  int exit_code = kExitOk;
  for (const std::string& url : args.urls) {
    const absl::StatusOr<robots::MatchResult> result = rules.MatchUrl(args.agent, url);
    if (!result.ok()) {
      std::cerr << "invalid URL: " << result.status().message() << "\n";
      exit_code = kExitFailure;
      continue;
    }
    std::cout << (result->allowed ? "allowed" : "disallowed") << '\t' << url;
    if (result->rule.has_value()) {
      std::cout << '\t' << robots::RuleKindName(result->rule->kind) << ": " << result->rule->pattern
                << '\t' << "(line " << result->rule->line << ")";
    }
    std::cout << '\n';
  }
  return exit_code;
}

}  // namespace

void AddInspectRobotsCommand(CLI::App& inspect, int* exit_code) {
  auto args = std::make_shared<InspectRobotsArgs>();
  CLI::App* cmd = inspect.add_subcommand(
      "robots", "Check URLs against a robots.txt file for one crawler (RFC 9309)");
  cmd->add_option("--file", args->file, "Path of the robots.txt file")->required();
  cmd->add_option("--agent", args->agent,
                  "The crawler's product token, e.g. MyBot (a trailing /version is ignored)")
      ->required();
  cmd->add_option("urls", args->urls,
                  "Absolute URLs (or paths starting with /) to check; put -- before them if one "
                  "starts with '-'")
      ->required();
  cmd->footer(kFormatHelp);
  cmd->callback([args, exit_code] { *exit_code = RunInspectRobots(*args); });
}

}  // namespace crawler::cli
