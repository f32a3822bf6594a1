// `crawlctl`: the command-line client of the scheduler's Admin API (docs/crawlctl.md). main()
// only parses the command line and calls the commands of commands.h.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/config/key_table.h"
#include "tools/crawlctl/archive_pull.h"
#include "tools/crawlctl/commands.h"
#include "tools/crawlctl/host_commands.h"
#include "tools/crawlctl/requests.h"

namespace {

using crawler::crawlctl::kExitInvalid;

// A duration flag ("10s", "500ms"), checked by CLI11 so a bad one is a usage error.
CLI::Validator DurationValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        absl::StatusOr<absl::Duration> d = crawler::config::ParseNonNegativeDuration(text);
        if (!d.ok()) return std::string(d.status().message());
        if (*d <= absl::ZeroDuration()) return "must be positive";
        return "";
      },
      "DURATION");
}

absl::Duration ParseDuration(const std::string& text) {
  return *crawler::config::ParseNonNegativeDuration(text);  // validated by DurationValidator
}

absl::StatusOr<crawler::crawlctl::CollectionFile> LoadFile(const std::string& path) {
  if (path != "-") return crawler::crawlctl::LoadCollectionFile(path);
  std::stringstream text;
  text << std::cin.rdbuf();
  return crawler::crawlctl::ParseCollectionYaml(text.str(), "-");
}

namespace cc = crawler::crawlctl;

// What the command line names, and what to run once the session is open.
struct Args {
  std::string file;
  std::string name;
  std::string seed_file;
  std::vector<std::string> sitemaps;  // seeds add --sitemap
  bool file_of_sitemaps = false;      // seeds add --sitemaps
  std::string interval = "2s";
  std::vector<std::string> urls;
  cc::WatchOptions watch;
  cc::PullOptions pull;
  // hosts ...
  std::string host;
  std::string until;
  std::string block_for;
  std::string delay;
  std::string limit;
  cc::HostListOptions host_list;
  cc::HostUrlsOptions host_urls;
  std::function<int(cc::Session&)> run;
};

// collections create|update|list|get|pause|resume|delete.
void AddCollectionCommands(CLI::App& app, Args& a) {
  CLI::App* collections = app.add_subcommand("collections", "Create, change and list collections");
  collections->require_subcommand(1);

  CLI::App* create = collections->add_subcommand(
      "create", "Create a collection from a YAML file (keys of docs/configuration.md, with name)");
  create->add_option("-f,--file", a.file, "Collection YAML file, or - for stdin")->required();
  create->callback([&] {
    a.run = [&](cc::Session& s) {
      absl::StatusOr<cc::CollectionFile> loaded = LoadFile(a.file);
      return loaded.ok() ? cc::CreateCollection(s, *loaded) : s.FailInput(loaded.status());
    };
  });

  CLI::App* update = collections->add_subcommand(
      "update", "Change the keys a YAML file sets; the others keep their values");
  update->add_option("name", a.name, "Collection")->required();
  update->add_option("-f,--file", a.file, "YAML file with the keys to change, or - for stdin")
      ->required();
  update->callback([&] {
    a.run = [&](cc::Session& s) {
      absl::StatusOr<cc::CollectionFile> loaded = LoadFile(a.file);
      return loaded.ok() ? cc::UpdateCollection(s, a.name, *loaded) : s.FailInput(loaded.status());
    };
  });

  collections->add_subcommand("list", "List every collection")->callback([&] {
    a.run = [](cc::Session& s) { return cc::ListCollections(s); };
  });

  struct NamedCommand {
    const char* verb;
    const char* help;
    int (*call)(cc::Session&, const std::string&);
  };
  for (const NamedCommand& c : {
           NamedCommand{"get", "Show a collection: state, times and definition", cc::GetCollection},
           NamedCommand{"pause", "Stop leasing a collection's URLs (idempotent)",
                        cc::PauseCollection},
           NamedCommand{"resume", "Lease a paused collection's URLs again (idempotent)",
                        cc::ResumeCollection},
           NamedCommand{"delete",
                        "Delete a collection's definition and crawl state (WARC files stay); "
                        "asks no confirmation",
                        cc::DeleteCollection},
       }) {
    CLI::App* sub = collections->add_subcommand(c.verb, c.help);
    sub->add_option("name", a.name, "Collection")->required();
    sub->callback(
        [&, call = c.call] { a.run = [&, call](cc::Session& s) { return call(s, a.name); }; });
  }
}

// seeds add.
void AddSeedCommands(CLI::App& app, Args& a) {
  CLI::App* seeds = app.add_subcommand("seeds", "Add seeds to a collection");
  seeds->require_subcommand(1);
  CLI::App* seeds_add = seeds->add_subcommand(
      "add", "Stream URLs (one per line; blank lines and # comments skipped) to a collection");
  seeds_add->add_option("name", a.name, "Collection")->required();
  CLI::Option* file =
      seeds_add->add_option("file", a.seed_file, "File of URLs, or - for stdin");
  CLI::Option* sitemap = seeds_add->add_option(
      "--sitemap", a.sitemaps,
      "Sitemap URL to read for its pages (repeatable; plain, gzip or index files)");
  seeds_add->add_flag("--sitemaps", a.file_of_sitemaps,
                      "The file's URLs are sitemaps to read, not pages");
  file->excludes(sitemap);
  seeds_add->callback([&] {
    a.run = [&](cc::Session& s) {
      const size_t batch = cc::SeedBatcher::kMaxSeedsPerMessage;
      if (!a.sitemaps.empty()) {
        std::stringstream urls;
        for (const std::string& url : a.sitemaps) urls << url << "\n";
        return cc::AddSeeds(s, a.name, urls, batch, /*sitemaps=*/true);
      }
      if (a.seed_file.empty()) {
        return s.FailInput(absl::InvalidArgumentError("give a file of URLs, - or --sitemap URL"));
      }
      if (a.seed_file == "-") return cc::AddSeeds(s, a.name, std::cin, batch, a.file_of_sitemaps);
      std::ifstream in(a.seed_file);
      if (!in) return s.FailInput(absl::NotFoundError("cannot read " + a.seed_file));
      return cc::AddSeeds(s, a.name, in, batch, a.file_of_sitemaps);
    };
  });
}

// stats and explain.
void AddQueryCommands(CLI::App& app, Args& a) {
  CLI::App* stats = app.add_subcommand("stats", "A collection's statistics over every partition");
  stats->add_option("name", a.name, "Collection")->required();
  stats->add_flag("-w,--watch", a.watch.watch, "Refresh until interrupted (Ctrl-C)");
  stats->add_option("--interval", a.interval, "Between refreshes with --watch")
      ->check(DurationValidator())
      ->capture_default_str();
  stats->add_option("--count", a.watch.count, "Stop after N refreshes (implies --watch; 0: never)");
  stats->callback([&] {
    a.watch.watch = a.watch.watch || a.watch.count > 0;
    a.watch.interval = ParseDuration(a.interval);
    a.watch.clear_screen = a.watch.watch && isatty(STDOUT_FILENO) == 1;
    a.run = [&](cc::Session& s) { return cc::Stats(s, a.name, a.watch); };
  });

  app.add_subcommand("partitions",
                     "The partition layout, and where a change of the count stands (reshard)")
      ->callback([&] { a.run = [](cc::Session& s) { return cc::Partitions(s); }; });

  CLI::App* explain = app.add_subcommand(
      "explain", "Why each URL is in its state: scope, partition, the frontier's record");
  explain->add_option("name", a.name, "Collection")->required();
  explain->add_option("urls", a.urls, "URLs as a user writes them")->required();
  explain->callback(
      [&] { a.run = [&](cc::Session& s) { return cc::Explain(s, a.name, a.urls); }; });
}

// The end of `hosts block`: --until TIME (RFC 3339) or --for DURATION from now.
absl::StatusOr<absl::Time> BlockEnd(const std::string& until, const std::string& block_for) {
  if (until.empty() == block_for.empty()) {
    return absl::InvalidArgumentError("hosts block: give one of --until and --for");
  }
  if (!block_for.empty()) return absl::Now() + ParseDuration(block_for);
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, until, &time, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--until ", until, ": not an RFC 3339 time (", error, ")"));
  }
  return time;
}

// hosts list|get|block|unblock|delay|limit|drop|urls (tools/crawlctl/host_commands.h).
void AddHostCommands(CLI::App& app, Args& a) {
  CLI::App* hosts = app.add_subcommand(
      "hosts", "A collection's hosts: list, show, block, slow, cap, drop (docs/crawlctl.md)");
  hosts->require_subcommand(1);
  auto named = [&](const char* verb, const char* help) {
    CLI::App* sub = hosts->add_subcommand(verb, help);
    sub->add_option("collection", a.name, "Collection")->required();
    return sub;
  };
  auto with_host = [&](const char* verb, const char* help) {
    CLI::App* sub = named(verb, help);
    sub->add_option("host", a.host, "Host key (host, or host:port for a non-default port)")
        ->required();
    return sub;
  };

  CLI::App* list = named("list", "One page of the collection's hosts, over every partition");
  list->add_option("--sort", a.host_list.sort, "queued | errors | next-due")
      ->check(CLI::IsMember({"queued", "errors", "next-due"}))
      ->capture_default_str();
  list->add_option("--suffix", a.host_list.suffix, "Only this host and the hosts under it");
  list->add_option("--page-size", a.host_list.page_size, "Hosts per page, 1 to 1000")
      ->capture_default_str();
  list->add_option("--page-token", a.host_list.page_token, "From the previous page");
  list->callback(
      [&] { a.run = [&](cc::Session& s) { return cc::ListHosts(s, a.name, a.host_list); }; });

  with_host("get", "A host's URLs by state, times, recent errors, robots.txt, controls")
      ->callback([&] { a.run = [&](cc::Session& s) { return cc::GetHost(s, a.name, a.host); }; });

  CLI::App* block = with_host("block", "Lease and fetch nothing of the host until a time");
  block->add_option("--until", a.until, "End of the block, RFC 3339 (2026-12-01T08:00:00Z)");
  block->add_option("--for", a.block_for, "Length of the block from now")
      ->check(DurationValidator());
  block->callback([&] {
    a.run = [&](cc::Session& s) {
      absl::StatusOr<absl::Time> end = BlockEnd(a.until, a.block_for);
      return end.ok() ? cc::BlockHost(s, a.name, a.host, *end) : s.FailInput(end.status());
    };
  });

  with_host("unblock", "End the host's block")->callback([&] {
    a.run = [&](cc::Session& s) { return cc::UnblockHost(s, a.name, a.host); };
  });

  CLI::App* delay = with_host("delay", "Least gap between two requests to the host (0 clears)");
  delay->add_option("duration", a.delay, "e.g. 30s; 0 clears the delay")->required();
  delay->callback([&] {
    a.run = [&](cc::Session& s) {
      absl::StatusOr<absl::Duration> d = crawler::config::ParseNonNegativeDuration(a.delay);
      return d.ok() ? cc::SetHostDelay(s, a.name, a.host, *d) : s.FailInput(d.status());
    };
  });

  CLI::App* limit = with_host("limit", "The host's page limit in place of the collection's");
  limit->add_option("pages", a.limit, "Pages, or none for the collection's limit")->required();
  limit->callback([&] {
    a.run = [&](cc::Session& s) {
      if (a.limit == "none") return cc::SetHostPageLimit(s, a.name, a.host, std::nullopt);
      uint64_t pages = 0;
      if (!absl::SimpleAtoi(a.limit, &pages)) {
        return s.FailInput(absl::InvalidArgumentError(
            absl::StrCat("pages ", a.limit, ": a number, or none")));
      }
      return cc::SetHostPageLimit(s, a.name, a.host, pages);
    };
  });

  with_host("drop", "Drop the host's queued, leased and waiting URLs (they stay seen)")
      ->callback(
          [&] { a.run = [&](cc::Session& s) { return cc::DropHostQueue(s, a.name, a.host); }; });

  CLI::App* urls = with_host("urls", "One page of the host's URLs in a state");
  urls->add_option("--state", a.host_urls.state, "any | queued | leased | waiting | done | dropped")
      ->check(CLI::IsMember({"any", "queued", "leased", "waiting", "done", "dropped"}))
      ->capture_default_str();
  urls->add_option("--page-size", a.host_urls.page_size, "URLs per page, 1 to 1000")
      ->capture_default_str();
  urls->add_option("--page-token", a.host_urls.page_token, "From the previous page");
  urls->callback([&] {
    a.run = [&](cc::Session& s) { return cc::ListHostUrls(s, a.name, a.host, a.host_urls); };
  });
}

// archive list|pull (tools/crawlctl/archive_pull.h).
void AddArchiveCommands(CLI::App& app, Args& a) {
  CLI::App* archive = app.add_subcommand(
      "archive", "A collection's archive files, gathered from the fetchers (docs/archive.md)");
  archive->require_subcommand(1);
  CLI::App* list =
      archive->add_subcommand("list", "List the collection's archive files on every fetcher");
  list->add_option("collection", a.name, "Collection")->required();
  list->callback([&] { a.run = [&](cc::Session& s) { return cc::ListArchive(s, a.name); }; });
  cc::PullOptions& pull = a.pull;
  CLI::App* archive_pull = archive->add_subcommand(
      "pull", "Copy the collection's finished WARC files and CDXJ indexes into DIR (resumable)");
  archive_pull->add_option("collection", pull.collection, "Collection")->required();
  archive_pull->add_option("dir", pull.dir, "Directory to copy into (created if missing)")
      ->required();
  archive_pull->add_flag("--wacz", pull.wacz, "Then package the WARC files as a WACZ file");
  archive_pull->add_option("--wacz-file", pull.wacz_path,
                           "The WACZ file (implies --wacz; default DIR/COLLECTION.wacz)");
  archive_pull->add_option("--index-form", pull.index_form, "The WACZ's index form")
      ->check(CLI::IsMember({"auto", "cdxj", "compressed"}))
      ->capture_default_str();
  archive_pull->callback([&] {
    a.pull.wacz = a.pull.wacz || !a.pull.wacz_path.empty();
    a.run = [&](cc::Session& s) { return cc::PullArchive(s, a.pull); };
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"crawlctl: manage the crawler's collections through the scheduler's Admin API"};
  app.require_subcommand(1);
  cc::SessionOptions options;
  std::string timeout = "10s";
  app.add_option("--server", options.server, "Scheduler admin endpoint HOST:PORT")
      ->envname("CRAWLCTL_SERVER")
      ->capture_default_str();
  app.add_option("--token-file", options.token_file,
                 "File holding the bearer token (whitespace trimmed)")
      ->envname("CRAWLCTL_TOKEN_FILE");
  app.add_flag("--tls", options.tls, "Connect with TLS (system roots unless --ca-file)");
  app.add_option("--ca-file", options.ca_file, "PEM roots to verify the server (implies --tls)");
  app.add_option("--tls-server-name", options.tls_server_name,
                 "Name expected in the server's certificate (default: the host of --server)");
  app.add_option("--timeout", timeout, "Deadline of each call")
      ->check(DurationValidator())
      ->capture_default_str();
  app.add_flag("--json", options.json, "Print each reply as JSON (protobuf's JSON mapping)");

  // Each command stores what to run; it runs after parsing, once the session is open.
  Args a;
  AddCollectionCommands(app, a);
  AddSeedCommands(app, a);
  AddQueryCommands(app, a);
  AddArchiveCommands(app, a);
  AddHostCommands(app, a);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? cc::kExitOk : kExitInvalid;
  }
  if (!a.run) {  // unreachable while every command group requires a subcommand
    std::cerr << app.help();
    return kExitInvalid;
  }
  options.timeout = ParseDuration(timeout);
  absl::StatusOr<cc::Session> session = cc::Session::Open(options, std::cout, std::cerr);
  if (!session.ok()) {
    std::cerr << "crawlctl: " << session.status().message() << "\n";
    return kExitInvalid;
  }
  return a.run(*session);
}
