// `crawler crawl`: a standalone crawl (services/standalone). Flags are the YAML keys of --config
// (one table, standalone::CrawlConfigKeys(); docs/configuration.md) and override them; their
// names are a contract.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/config/flag_binding.h"
#include "services/common/metrics/metrics_server.h"
#include "services/standalone/crawl_config.h"
#include "services/standalone/standalone_crawl.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

// The flags the key table does not describe: --seeds (URLs or files of URLs, replacing the
// file's seeds), --config and --quiet; the rest come from CrawlConfigKeys().
struct CrawlFlags {
  std::vector<std::string> seeds;
  std::string config_file;
  bool quiet = false;
  std::unique_ptr<config::FlagBinding<standalone::CrawlConfig>> keys;
};

// --seeds takes URLs or files of URLs (one per line, '#' comments).
absl::Status ExpandSeeds(const std::vector<std::string>& args, std::vector<std::string>& out) {
  for (const std::string& arg : args) {
    if (absl::StrContains(arg, "://")) {
      out.push_back(arg);
      continue;
    }
    std::ifstream in(arg);
    if (!in) {
      return absl::InvalidArgumentError("--seeds: \"" + arg +
                                        "\" is neither a URL nor a readable file");
    }
    std::string line;
    while (std::getline(in, line)) {
      const std::string trimmed(absl::StripAsciiWhitespace(line));
      if (!trimmed.empty() && trimmed[0] != '#') out.push_back(trimmed);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<standalone::CrawlConfig> BuildConfig(const CrawlFlags& f) {
  standalone::CrawlConfig c;
  if (!f.config_file.empty()) {
    if (absl::Status s = standalone::LoadCrawlConfigYaml(f.config_file, c); !s.ok()) return s;
  }
  if (!f.seeds.empty()) {
    c.collection.seeds.clear();
    if (absl::Status s = ExpandSeeds(f.seeds, c.collection.seeds); !s.ok()) return s;
  }
  if (absl::Status s = f.keys->Apply(c); !s.ok()) return s;
  if (f.quiet) c.progress.interval = absl::ZeroDuration();
  // A minimum delay above the default maximum raises the maximum with it (otherwise
  // `--min-delay 2m` alone would be rejected as inconsistent).
  if (!f.keys->Given("max_delay") &&
      c.collection.politeness.max_delay < c.collection.politeness.min_delay) {
    c.collection.politeness.max_delay = c.collection.politeness.min_delay;
  }
  return c;
}

int RunCrawl(const CrawlFlags& flags) {
  StderrLogSink sink;
  const Logger log(sink, "crawl");
  absl::StatusOr<standalone::CrawlConfig> config = BuildConfig(flags);
  if (!config.ok()) {
    log.Error(config.status().message());
    return kExitUsage;
  }
  // SIGINT/SIGTERM are taken by a thread (sigwait), which asks the crawl to stop; the rest of
  // the process never sees them. A second signal exits at once.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Before the crawl, so it outlives the crawl's collectors.
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (!config->metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> started =
        metrics::MetricsServer::Start(config->metrics_listen);
    if (!started.ok()) {
      log.Error(started.status().message());
      return absl::IsInvalidArgument(started.status()) ? kExitUsage : kExitFailure;
    }
    metrics_server = *std::move(started);
    log.Info("metrics on http://", metrics_server->address(), "/metrics");
  }
  SystemClock clock;
  absl::StatusOr<std::unique_ptr<standalone::StandaloneCrawl>> crawl =
      standalone::StandaloneCrawl::Open(*std::move(config), clock, metrics_server.get(), log);
  if (!crawl.ok()) {
    log.Error(crawl.status().message());
    return absl::IsInvalidArgument(crawl.status()) ? kExitUsage : kExitFailure;
  }
  std::atomic<bool> finished{false};
  std::thread signal_thread([&signals, &finished, &log, c = crawl->get()] {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0 || finished) return;
    log.Info(sig == SIGINT ? "SIGINT" : "SIGTERM",
             " received, finishing transfers in flight (again to abort)");
    c->Stop();
    if (sigwait(&signals, &sig) == 0 && !finished) _exit(130);
  });
  absl::StatusOr<fetcher::CrawlTotals> totals = (*crawl)->Run();
  // The last scrapes see the whole crawl; none sees its parts go one by one as it is destroyed.
  if (metrics_server != nullptr) metrics_server->StopServing();
  // Release the signal thread, which waits for a (first or second) signal.
  finished = true;
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  if (!totals.ok()) {
    log.Error(totals.status().message());
    return kExitFailure;
  }
  log.Info("done: ", totals->pages, " pages, ", totals->errors, " errors, ", totals->duplicates,
           " duplicates, ", totals->robots_denied, " robots-denied");
  return kExitOk;
}

}  // namespace

void AddCrawlCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CrawlFlags>();
  CLI::App* cmd = app.add_subcommand(
      "crawl", "Crawl from seeds in this process (state in --data-dir; run again to resume)");
  cmd->add_option("--seeds", flags->seeds, "Seed URLs, or files with one URL per line")
      ->expected(1, -1);
  cmd->add_option("--config", flags->config_file,
                  "YAML file (docs/configuration.md); flags override it");
  flags->keys = std::make_unique<config::FlagBinding<standalone::CrawlConfig>>(
      standalone::CrawlConfigKeys(), *cmd);
  cmd->add_flag("--quiet", flags->quiet, "No progress lines (as --progress-interval 0)");
  cmd->callback([flags, exit_code] { *exit_code = RunCrawl(*flags); });
}

}  // namespace crawler::cli
