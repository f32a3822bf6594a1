// websim: the project's synthetic web server. Parses flags, builds the SiteModel, writes the
// requested files, serves on loopback until SIGINT/SIGTERM or --max-seconds. docs/websim.md is
// the manual.
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/bandit/random.h"
#include "services/common/open_file_limit.h"
#include "tools/banditsim/site_set.h"
#include "tools/websim/change_corpus.h"
#include "tools/websim/change_log.h"
#include "tools/websim/focus_sites.h"
#include "tools/websim/ground_truth.h"
#include "tools/websim/http_server.h"
#include "tools/websim/request_log.h"
#include "tools/websim/site_export.h"
#include "tools/websim/site_model.h"
#include "tools/websim/websim_handler.h"

namespace {

using crawler::websim::WebsimOptions;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
// Not an exit code: the step went well, go on.
constexpr int kContinue = -1;

// "MIN" or "MIN,MAX" as two numbers (MAX = MIN when omitted).
bool ParseRange(const std::string& text, double* min, double* max) {
  std::vector<std::string> parts = absl::StrSplit(text, ',');
  if (parts.empty() || parts.size() > 2) return false;
  if (!absl::SimpleAtod(parts[0], min)) return false;
  *max = *min;
  return parts.size() == 1 || absl::SimpleAtod(parts[1], max);
}

// Written to a temporary name and renamed, so a test polling for the file never reads half.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view content) {
  const std::string tmp = absl::StrCat(path, ".tmp");
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", tmp));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  if (std::fclose(f) != 0 || !ok) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot rename to ", path));
  }
  return absl::OkStatus();
}

int Fail(const absl::Status& status) {
  std::cerr << "websim: " << status << "\n";
  return kExitFailure;
}

// Every flag that is not a WebsimOptions field, with its default.
struct Flags {
  WebsimOptions options;
  int port = 0;
  // A test web never leaves loopback; a container serving it to other pods binds its own
  // address (0.0.0.0) instead.
  std::string bind_address = "127.0.0.1";
  int threads = 1;
  double max_seconds = 3600;
  double crawl_delay_seconds = 0;
  std::string latency_ms = "0";
  std::string page_bytes =
      absl::StrCat(WebsimOptions{}.page_bytes_min, ",", WebsimOptions{}.page_bytes_max);
  std::string port_file, log_file, truth_file, seeds_file, export_dir;
  std::string change_rates, change_log_file, rates_file;
  double time_scale = 0;
  int64_t epoch_unix_seconds = absl::ToUnixSeconds(WebsimOptions{}.change_epoch);
  bool print_seeds = false, print_truth = false, no_serve = false;
  std::string focus_set, focus_replay_file;
  std::vector<std::string> focus_site_texts;
  std::string change_corpus_dir;
  int change_corpus_pages = 200;
};

// The web's shape: hosts, pages, links, robots.txt, sitemaps, page sizes, latency.
void AddWebFlags(CLI::App& app, Flags& f) {
  app.add_option("--hosts", f.options.num_hosts, "number of hosts h0<suffix> ...")
      ->capture_default_str();
  app.add_option("--pages", f.options.pages_per_host, "pages per host (linked or deliberately not)")
      ->capture_default_str();
  app.add_option("--seed", f.options.seed, "seed of every pseudo-random choice")
      ->capture_default_str();
  app.add_option("--host-suffix", f.options.host_suffix, "host name suffix")->capture_default_str();
  app.add_option("--seed-hosts", f.options.num_seed_hosts,
                 "seeds are the roots of the first N hosts (0 = every host)")
      ->capture_default_str();
  app.add_option("--links", f.options.links_per_page, "extra random links per page")
      ->capture_default_str();
  app.add_option("--popular-links", f.options.popular_links,
                 "every page links its host's root and the roots of hosts 0..N-1")
      ->capture_default_str();
  app.add_option("--cross-host-fraction", f.options.cross_host_fraction,
                 "share of extra links to other hosts")
      ->capture_default_str();
  app.add_option("--nofollow-fraction", f.options.nofollow_fraction,
                 "share of extra links with rel=nofollow")
      ->capture_default_str();
  app.add_option("--private-fraction", f.options.private_fraction,
                 "share of pages under /private/ (disallowed)")
      ->capture_default_str();
  app.add_option("--private-open-fraction", f.options.private_open_fraction,
                 "share of pages under /private/open/ (allowed again)")
      ->capture_default_str();
  app.add_option("--nofollow-only-fraction", f.options.nofollow_only_fraction,
                 "share of pages linked only with rel=nofollow")
      ->capture_default_str();
  app.add_flag("--equal-host-sizes", f.options.equal_host_sizes,
               "draw page classes per page id, not per host: every host has as many pages");
  app.add_option("--sitemap-fraction", f.options.sitemap_fraction,
                 "share of reachable pages listed in sitemap.xml")
      ->capture_default_str();
  app.add_option("--sitemap-only", f.options.sitemap_only_pages,
                 "pages per host listed only in sitemap.xml")
      ->capture_default_str();
  app.add_flag("--sitemap-lastmod,!--no-sitemap-lastmod", f.options.sitemap_lastmod,
               "<lastmod> in sitemap entries (the page's last change)")
      ->capture_default_str();
  app.add_option("--sitemap-lastmod-lie", f.options.sitemap_lastmod_lie_fraction,
                 "share of hosts whose sitemap <lastmod> is always the time of the request")
      ->capture_default_str();
  app.add_option("--sitemap-in-robots", f.options.sitemap_in_robots_fraction,
                 "share of hosts whose robots.txt names the sitemap (the rest: /sitemap.xml only)")
      ->capture_default_str();
  app.add_option("--sitemap-max-urls", f.options.sitemap_max_urls,
                 "URLs per sitemap file; more make /sitemap.xml an index of /sitemap-N.xml")
      ->capture_default_str();
  app.add_option("--scripted-hosts", f.options.scripted_host_fraction,
                 "share of hosts whose links are mostly delivered by JavaScript")
      ->capture_default_str();
  app.add_option("--scripted-static-pages", f.options.scripted_static_page_fraction,
                 "share of a scripted host's pages still linked without script (<a href>, button)")
      ->capture_default_str();
  app.add_option("--hostile-hosts", f.options.hostile_host_fraction,
                 "share of scripted hosts that also serve the hostile pages under /_hostile/")
      ->capture_default_str();
  app.add_option("--hostile-probe-port", f.options.hostile_probe_port,
                 "port of the hostile loopback fetch (0: --port if set, else the page's own)")
      ->capture_default_str();
  app.add_option("--crawl-delay", f.crawl_delay_seconds,
                 "Crawl-delay in robots.txt, seconds (0 = none)")
      ->capture_default_str();
  app.add_option("--page-bytes", f.page_bytes, "page body size range MIN,MAX in bytes")
      ->capture_default_str();
  app.add_option("--latency-ms", f.latency_ms,
                 "response delay per host, MIN[,MAX] milliseconds (uniform per host)")
      ->capture_default_str();
}

// Changing pages, focused sites, where to serve and what files to write.
void AddOtherFlags(CLI::App& app, Flags& f) {
  app.add_option("--change-rates", f.change_rates,
                 "changing pages: fixed:RATE or gamma:SHAPE,SCALE, changes per simulated day");
  app.add_option("--time-scale", f.time_scale,
                 "simulated days per real second (default 1 with --change-rates)");
  app.add_flag("--noise,!--no-noise", f.options.noise,
               "varying counter, time stamp and ad line on changing pages")
      ->capture_default_str();
  app.add_option("--epoch", f.epoch_unix_seconds,
                 "wall-clock time (Unix seconds) of simulated time 0, for Last-Modified")
      ->capture_default_str();
  app.add_option("--change-log", f.change_log_file,
                 "write every page's rate and change times to this file at exit");
  app.add_option("--rates-file", f.rates_file, "write url<TAB>rate_per_day of every page");
  app.add_option("--focus-set", f.focus_set,
                 "focused-collection sites: draw --hosts sites of banditsim's set type "
                 "(table1, institute, university, mixed) with --seed");
  app.add_option("--focus-site", f.focus_site_texts,
                 "focused-collection site PAGES:DENSITY:PLACEMENT[:START:SCALE[:BURSTS:LINKS]] "
                 "(repeatable, one host each)");
  app.add_option("--focus-occurrences", f.options.focus_duplicates.occurrences_per_link,
                 "focused sites: occurrences per distinct external link")
      ->capture_default_str();
  app.add_option("--focus-zipf", f.options.focus_duplicates.zipf,
                 "focused sites: Zipf exponent of the repeated links' popularity")
      ->capture_default_str();
  app.add_option("--focus-replay", f.focus_replay_file,
                 "write the focused sites' new external links per page (banditsim --replay)");
  app.add_option("--port", f.port, "TCP port (0 = ephemeral)")->capture_default_str();
  app.add_option("--bind", f.bind_address,
                 "IPv4 address to listen on (0.0.0.0: every interface, e.g. in a container)")
      ->capture_default_str();
  app.add_option("--port-file", f.port_file, "write the port number to this file once listening");
  app.add_option("--threads", f.threads, "server threads")->capture_default_str();
  app.add_option("--log", f.log_file, "request log file (docs/websim.md: Request log)");
  app.add_option("--truth", f.truth_file, "write the ground truth to this file");
  app.add_option("--seeds-file", f.seeds_file, "write the seed URLs to this file");
  app.add_option("--export", f.export_dir, "write the whole web as static files under DIR");
  app.add_option("--change-corpus", f.change_corpus_dir,
                 "write the labelled change corpus (page versions with noise and real edits, "
                 "duplicate pairs; docs/websim.md) under DIR");
  app.add_option("--change-corpus-pages", f.change_corpus_pages,
                 "base pages of --change-corpus (one pair per edit kind each)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_flag("--print-seeds", f.print_seeds, "print the seed URLs and exit");
  app.add_flag("--print-truth", f.print_truth, "print the ground truth and exit");
  app.add_flag("--no-serve", f.no_serve, "exit after writing the requested files");
  app.add_option("--max-seconds", f.max_seconds, "exit after this many seconds of serving")
      ->capture_default_str();
}

// Turns the flags that are not plain options into f.options. Returns kExitUsage after saying
// why on stderr, or kContinue.
int ApplyFlags(Flags& f) {
  double min = 0, max = 0;
  if (!ParseRange(f.latency_ms, &min, &max)) {
    std::cerr << "websim: --latency-ms wants MIN[,MAX], got " << f.latency_ms << "\n";
    return kExitUsage;
  }
  f.options.latency_min = absl::Microseconds(static_cast<int64_t>(min * 1000));
  f.options.latency_max = absl::Microseconds(static_cast<int64_t>(max * 1000));
  if (!ParseRange(f.page_bytes, &min, &max)) {
    std::cerr << "websim: --page-bytes wants MIN,MAX, got " << f.page_bytes << "\n";
    return kExitUsage;
  }
  f.options.page_bytes_min = static_cast<int64_t>(min);
  f.options.page_bytes_max = static_cast<int64_t>(max);
  f.options.crawl_delay = absl::Seconds(f.crawl_delay_seconds);
  // The loopback probe of the hostile pages then reaches websim itself, where the request log
  // shows whether a crawler's browser let it through.
  if (f.options.hostile_probe_port == 0) f.options.hostile_probe_port = f.port;
  if (!f.change_rates.empty()) {
    absl::StatusOr<crawler::websim::ChangeRates> rates =
        crawler::websim::ParseChangeRates(f.change_rates);
    if (!rates.ok()) {
      std::cerr << "websim: --change-rates: " << rates.status().message() << "\n";
      return kExitUsage;
    }
    f.options.change_rates = *rates;
    f.options.time_scale = f.time_scale == 0 ? 1.0 : f.time_scale;
  } else if (f.time_scale != 0) {
    std::cerr << "websim: --time-scale needs --change-rates\n";
    return kExitUsage;
  }
  f.options.change_epoch = absl::FromUnixSeconds(f.epoch_unix_seconds);
  if (!f.focus_set.empty() && !f.focus_site_texts.empty()) {
    std::cerr << "websim: --focus-set and --focus-site exclude each other\n";
    return kExitUsage;
  }
  if (!f.focus_set.empty()) {
    crawler::bandit::Random random(f.options.seed);
    absl::StatusOr<std::vector<crawler::banditsim::SiteSpec>> specs =
        crawler::banditsim::DrawSiteSpecs(f.focus_set, f.options.num_hosts, random);
    if (!specs.ok()) {
      std::cerr << "websim: --focus-set: " << specs.status().message() << "\n";
      return kExitUsage;
    }
    f.options.UseFocusSites(*std::move(specs));
  } else if (!f.focus_site_texts.empty()) {
    std::vector<crawler::banditsim::SiteSpec> specs;
    for (const std::string& text : f.focus_site_texts) {
      absl::StatusOr<crawler::banditsim::SiteSpec> spec = crawler::websim::ParseFocusSite(text);
      if (!spec.ok()) {
        std::cerr << "websim: " << spec.status().message() << "\n";
        return kExitUsage;
      }
      specs.push_back(*spec);
    }
    f.options.UseFocusSites(std::move(specs));
  } else if (!f.focus_replay_file.empty()) {
    std::cerr << "websim: --focus-replay needs --focus-set or --focus-site\n";
    return kExitUsage;
  }
  if (!(f.max_seconds > 0)) {
    std::cerr << "websim: --max-seconds must be > 0\n";
    return kExitUsage;
  }
  return kContinue;
}

// Prints or writes what the flags ask for: seeds, ground truth, replay, rates, the static
// export, the change corpus, and (with --no-serve) the change log. Returns an exit code when
// websim is done, or kContinue to serve.
int WriteRequested(crawler::websim::SiteModel& model, const Flags& f) {
  if (f.print_seeds) {
    std::cout << crawler::websim::FormatSeeds(model);
    return kExitOk;
  }
  if (f.print_truth || !f.truth_file.empty()) {
    const std::string truth =
        crawler::websim::FormatGroundTruth(model, crawler::websim::ComputeGroundTruth(model));
    if (f.print_truth) {
      std::cout << truth;
      return kExitOk;
    }
    if (absl::Status s = WriteFileAtomically(f.truth_file, truth); !s.ok()) return Fail(s);
  }
  if (!f.seeds_file.empty()) {
    if (absl::Status s = WriteFileAtomically(f.seeds_file, crawler::websim::FormatSeeds(model));
        !s.ok()) {
      return Fail(s);
    }
  }
  if (!f.focus_replay_file.empty()) {
    std::vector<std::string> names;
    for (int host = 0; host < model.num_hosts(); ++host) names.push_back(model.HostName(host));
    if (absl::Status s =
            WriteFileAtomically(f.focus_replay_file, model.focus()->FormatReplay(names));
        !s.ok()) {
      return Fail(s);
    }
  }
  if (!f.rates_file.empty()) {
    if (absl::Status s = WriteFileAtomically(f.rates_file, crawler::websim::FormatRates(model));
        !s.ok()) {
      return Fail(s);
    }
  }
  if (!f.export_dir.empty()) {
    if (absl::Status s = crawler::websim::ExportSite(model, f.export_dir); !s.ok()) return Fail(s);
  }
  if (!f.change_corpus_dir.empty()) {
    const crawler::websim::ChangeCorpus corpus = crawler::websim::BuildChangeCorpus(
        {.seed = f.options.seed,
         .pages = f.change_corpus_pages,
         .duplicate_pairs = std::max(1, f.change_corpus_pages / 2)});
    if (absl::Status s = crawler::websim::ExportChangeCorpus(corpus, f.change_corpus_dir);
        !s.ok()) {
      return Fail(s);
    }
  }
  if (f.no_serve) {
    if (f.change_log_file.empty()) return kExitOk;
    absl::Status s = WriteFileAtomically(
        f.change_log_file, crawler::websim::FormatChangeLog(model, absl::ZeroDuration()));
    return s.ok() ? kExitOk : Fail(s);
  }
  return kContinue;
}

// Serves on loopback until SIGINT, SIGTERM or --max-seconds; writes the change log at the end.
int Serve(crawler::websim::SiteModel& model, const Flags& f) {
  std::unique_ptr<crawler::websim::RequestLog> log;
  if (!f.log_file.empty()) {
    absl::StatusOr<std::unique_ptr<crawler::websim::RequestLog>> opened =
        crawler::websim::RequestLog::Open(f.log_file);
    if (!opened.ok()) return Fail(opened.status());
    log = *std::move(opened);
  }
  // Many crawler connections at once need more than the usual soft limit of 1,024.
  crawler::service::RaiseOpenFileLimit();

  // Workers inherit this mask, so only sigtimedwait below ever sees SIGINT/SIGTERM: shutdown is
  // an ordinary return from main, with the log flushed, and no handler touches global state.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  const int64_t start_ns = crawler::websim::MonotonicNowNs();
  crawler::websim::WebsimHandler handler(&model, start_ns);
  crawler::websim::HttpServerOptions server_options;
  server_options.port = f.port;
  server_options.address = f.bind_address;
  server_options.threads = f.threads;
  absl::StatusOr<std::unique_ptr<crawler::websim::HttpServer>> server =
      crawler::websim::HttpServer::Start(server_options, &handler, log.get());
  if (!server.ok()) return Fail(server.status());
  const int bound_port = (*server)->port();
  if (!f.port_file.empty()) {
    if (absl::Status s = WriteFileAtomically(f.port_file, absl::StrCat(bound_port, "\n"));
        !s.ok()) {
      return Fail(s);
    }
  }
  std::cerr << "websim listening on " << f.bind_address << ":" << bound_port << " ("
            << f.options.num_hosts << " hosts x " << f.options.pages_per_host << " pages, seed "
            << f.options.seed << ")" << std::endl;

  const int64_t deadline_ns =
      crawler::websim::MonotonicNowNs() + static_cast<int64_t>(f.max_seconds * 1e9);
  int signal_number = 0;
  while (true) {
    const int64_t left_ns = deadline_ns - crawler::websim::MonotonicNowNs();
    if (left_ns <= 0) break;
    timespec timeout{static_cast<time_t>(left_ns / 1'000'000'000),
                     static_cast<long>(left_ns % 1'000'000'000)};
    const int sig = sigtimedwait(&stop_signals, nullptr, &timeout);
    if (sig > 0) {
      signal_number = sig;
      break;
    }
    if (errno != EINTR && errno != EAGAIN) break;
  }
  (*server)->Stop();
  if (!f.change_log_file.empty()) {
    // The truth up to the moment serving stopped: no response can have shown a later version.
    const absl::Duration served = absl::Nanoseconds(crawler::websim::MonotonicNowNs() - start_ns);
    if (absl::Status s =
            WriteFileAtomically(f.change_log_file, crawler::websim::FormatChangeLog(model, served));
        !s.ok()) {
      return Fail(s);
    }
  }
  if (signal_number != 0) {
    std::cerr << "websim: stopping on " << strsignal(signal_number) << std::endl;
  } else {
    std::cerr << "websim: stopping after --max-seconds " << f.max_seconds << std::endl;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"websim: a deterministic synthetic web on 127.0.0.1 for crawler tests"};
  Flags f;
  AddWebFlags(app, f);
  AddOtherFlags(app, f);
  CLI11_PARSE(app, argc, argv);
  if (int code = ApplyFlags(f); code != kContinue) return code;
  absl::StatusOr<crawler::websim::SiteModel> model = crawler::websim::SiteModel::Create(f.options);
  if (!model.ok()) {
    std::cerr << "websim: " << model.status().message() << "\n";
    return kExitUsage;
  }
  if (int code = WriteRequested(*model, f); code != kContinue) return code;
  return Serve(*model, f);
}
