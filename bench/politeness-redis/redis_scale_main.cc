// bench/politeness-redis: what one Redis costs the fleet's politeness at many hosts
// (docs/benchmarks.md, "bench/politeness-redis"; `make bench-redis`). Against a redis-server it
// starts on loopback (no persistence), through RedisPoliteness as the fetchers use it:
//
//  1. Memory: `hosts` hosts claimed and released once without an address (a host hash each),
//     then as many other hosts with addresses (`hosts_per_address` hosts on each): Redis's
//     used_memory per host hash and per address hash.
//  2. Claims per second for each fleet size in `fetchers`: that many fetchers (a RedisPoliteness
//     each, with its own connections, on a thread of its own) each own a slice of the hosts, as
//     partitions do, and send batches of `batch` claims with the releases of the previous batch
//     (Exchange, one round trip), for `seconds`. Addresses are shared across slices, as real
//     ones are. Reported: claims per second, the share granted, and Redis's own CPU time per
//     claim (INFO cpu), from which the claims per second one Redis core serves follow; that
//     last figure does not depend on how busy the machine is.
//
// Delays are zero (min_delay 0, delay_factor 0), so a claim is refused only while another holds
// the slot of its host or address: the figures are the store's cost, not politeness waits.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "services/common/redis/redis_client.h"
#include "services/common/redis/redis_politeness.h"
#include "tests/unit/redis/local_redis.h"

namespace crawler::bench {
namespace {

struct Options {
  uint64_t hosts = 100'000;
  uint64_t hosts_per_address = 4;
  std::vector<int> fetchers = {1, 4, 16};
  double seconds = 5;
  size_t batch = 64;
  std::string json;
};

std::string Host(uint64_t i) { return absl::StrCat("host-", i, ".example.org"); }

// Host i's address: `addresses` of them in all, consecutive hosts on different ones (so a batch
// of consecutive hosts does not wait on itself), `hosts_per_address` hosts on each. Addresses
// of the IPv4 benchmarking range and beyond (198.18.0.0/15, ...): never contacted.
uint64_t Addresses(const Options& o) { return std::max<uint64_t>(1, o.hosts / o.hosts_per_address); }
std::string AddressOf(const Options& o, uint64_t host) {
  const uint64_t i = host % Addresses(o);
  return absl::StrFormat("%d.%d.%d.%d", 198 + static_cast<int>(i >> 24 & 7),
                         18 + static_cast<int>(i >> 16 & 255) % 238,
                         static_cast<int>(i >> 8 & 255), static_cast<int>(i & 255));
}

// One "field:value" of an INFO section, as a number.
absl::StatusOr<double> InfoField(redis::RedisConnection& redis, const std::string& section,
                                 const std::string& field) {
  absl::StatusOr<redis::Reply> reply = redis.Command({"INFO", section});
  if (!reply.ok()) return reply.status();
  const std::optional<std::string_view> text = redis::ReplyText(**reply);
  if (!text.has_value()) return absl::InternalError("INFO: not a string reply");
  const std::string key = "\r\n" + field + ":";
  const std::string all = "\r\n" + std::string(*text);
  const size_t at = all.find(key);
  if (at == std::string::npos) {
    return absl::NotFoundError(absl::StrCat("INFO ", section, " has no ", field));
  }
  return std::strtod(all.c_str() + at + key.size(), nullptr);
}

absl::StatusOr<double> RedisCpuSeconds(redis::RedisConnection& redis) {
  absl::StatusOr<double> user = InfoField(redis, "cpu", "used_cpu_user");
  absl::StatusOr<double> sys = InfoField(redis, "cpu", "used_cpu_sys");
  if (!user.ok()) return user.status();
  if (!sys.ok()) return sys.status();
  return *user + *sys;
}

absl::StatusOr<std::unique_ptr<redis::RedisPoliteness>> NewFetcher(
    const redis::RedisAddress& address, const Clock& clock, uint64_t seed) {
  redis::RedisPolitenessOptions options;
  options.redis.address = address;
  options.redis.io_timeout = absl::Seconds(10);  // a loaded machine must not fail a batch
  options.fresh_grace = absl::ZeroDuration();
  politeness::PolitenessOptions policy;
  policy.min_delay = absl::ZeroDuration();
  policy.delay_factor = 0;
  policy.jitter_fraction = 0;
  return redis::RedisPoliteness::Create(options, policy, clock, seed);
}

// Claims and releases hosts [first, first + count) once, `batch` at a time; with addresses when
// `with_address`. Returns the claims granted.
absl::StatusOr<uint64_t> TouchHosts(redis::RedisPoliteness& store, const Options& o,
                                    uint64_t first, uint64_t count, bool with_address) {
  // At most one claim per address in a batch: every one is granted.
  const uint64_t batch = std::min<uint64_t>(512, Addresses(o));
  uint64_t granted = 0;
  for (uint64_t begin = first; begin < first + count; begin += batch) {
    std::vector<politeness::ClaimRequest> claims;
    for (uint64_t i = begin; i < std::min(first + count, begin + batch); ++i) {
      claims.push_back({.host_key = Host(i), .ip = with_address ? AddressOf(o, i) : std::string()});
    }
    std::vector<politeness::ReleaseRequest> releases;
    std::vector<absl::StatusOr<politeness::ClaimResult>> answers = store.ClaimAll(claims);
    for (size_t k = 0; k < answers.size(); ++k) {
      if (!answers[k].ok()) return answers[k].status();
      if (!answers[k]->granted) continue;
      ++granted;
      releases.push_back({.host_key = claims[k].host_key,
                          .ip = claims[k].ip,
                          .response_time = absl::Milliseconds(100)});
    }
    for (const auto& released : store.ReleaseAll(releases)) {
      if (!released.ok()) return released.status();
    }
  }
  return granted;
}

struct MemoryFigures {
  double bytes_per_host = 0;     // MEMORY USAGE of a host hash, averaged over a sample
  double bytes_per_address = 0;  // the same for an address hash
  double growth_per_key = 0;     // used_memory's growth per key made (with the keyspace's own)
  double keys = 0;
};

// The average MEMORY USAGE of up to 200 keys named by `key(i)`, i in [first, first + count).
absl::StatusOr<double> AverageUsage(redis::RedisConnection& info, uint64_t first, uint64_t count,
                                    const std::function<std::string(uint64_t)>& key) {
  const uint64_t step = std::max<uint64_t>(1, count / 200);
  double sum = 0;
  int n = 0;
  for (uint64_t i = first; i < first + count; i += step) {
    absl::StatusOr<redis::Reply> reply = info.Command({"MEMORY", "USAGE", key(i)});
    if (!reply.ok()) return reply.status();
    const std::optional<int64_t> bytes = redis::ReplyInteger(**reply);
    if (!bytes.has_value()) return absl::InternalError(absl::StrCat("no key ", key(i)));
    sum += static_cast<double>(*bytes);
    ++n;
  }
  return n == 0 ? 0 : sum / n;
}

absl::StatusOr<MemoryFigures> MeasureMemory(const Options& o, redis::RedisConnection& info,
                                            redis::RedisPoliteness& store,
                                            const std::string& prefix) {
  absl::StatusOr<double> base = InfoField(info, "memory", "used_memory");
  if (!base.ok()) return base.status();
  // Hosts without addresses, then as many others with theirs.
  absl::StatusOr<uint64_t> granted = TouchHosts(store, o, 0, o.hosts, false);
  if (granted.ok() && *granted != o.hosts) return absl::InternalError("a host claim was refused");
  if (granted.ok()) granted = TouchHosts(store, o, o.hosts, o.hosts, true);
  if (!granted.ok()) return granted.status();
  if (*granted != o.hosts) return absl::InternalError("a host claim with its address was refused");
  absl::StatusOr<double> after = InfoField(info, "memory", "used_memory");
  if (!after.ok()) return after.status();
  absl::StatusOr<redis::Reply> size = info.Command({"DBSIZE"});
  if (!size.ok()) return size.status();
  MemoryFigures m;
  m.keys = static_cast<double>(redis::ReplyInteger(**size).value_or(0));
  m.growth_per_key = m.keys > 1 ? (*after - *base) / (m.keys - 1) : 0;  // less the epoch key
  absl::StatusOr<double> host = AverageUsage(
      info, 0, 2 * o.hosts, [&](uint64_t i) { return absl::StrCat(prefix, "h:", Host(i)); });
  if (!host.ok()) return host.status();
  absl::StatusOr<double> address = AverageUsage(
      info, o.hosts, Addresses(o), [&](uint64_t i) { return absl::StrCat(prefix, "i:", AddressOf(o, i)); });
  if (!address.ok()) return address.status();
  m.bytes_per_host = *host;
  m.bytes_per_address = *address;
  return m;
}

struct Step {
  int fetchers = 0;
  uint64_t claims = 0;
  uint64_t granted = 0;
  uint64_t exchanges = 0;
  double wall_seconds = 0;
  double redis_cpu_seconds = 0;
  std::string error;
};

// One fetcher's loop: batches of its own hosts (every `fetchers`-th from `slot`), round robin.
void FetcherLoop(redis::RedisPoliteness& store, const Options& o, int slot, int fetchers,
                 absl::Time deadline, Step& out, std::atomic<bool>& failed, std::string& error) {
  const uint64_t mine = (2 * o.hosts - static_cast<uint64_t>(slot) + fetchers - 1) / fetchers;
  uint64_t next = 0;
  std::vector<politeness::ReleaseRequest> releases;
  while (absl::Now() < deadline && !failed.load()) {
    std::vector<politeness::ClaimRequest> claims;
    for (size_t k = 0; k < o.batch; ++k) {
      const uint64_t host = static_cast<uint64_t>(slot) + next * fetchers;
      next = (next + 1) % mine;
      claims.push_back({.host_key = Host(host), .ip = AddressOf(o, host)});
    }
    politeness::Politeness::Exchanged answers = store.Exchange(releases, claims);
    releases.clear();
    ++out.exchanges;
    out.claims += claims.size();
    for (size_t k = 0; k < claims.size(); ++k) {
      if (!answers.claimed[k].ok()) {
        error = std::string(answers.claimed[k].status().message());
        failed = true;
        return;
      }
      if (!answers.claimed[k]->granted) continue;
      ++out.granted;
      releases.push_back({.host_key = claims[k].host_key,
                          .ip = claims[k].ip,
                          .response_time = absl::Milliseconds(100)});
    }
  }
  if (!releases.empty()) store.ReleaseAll(releases);
}

absl::StatusOr<Step> RunStep(const Options& o, const redis::RedisAddress& address,
                             redis::RedisConnection& info, int fetchers) {
  SystemClock clock;
  std::vector<std::unique_ptr<redis::RedisPoliteness>> stores;
  for (int f = 0; f < fetchers; ++f) {
    absl::StatusOr<std::unique_ptr<redis::RedisPoliteness>> store =
        NewFetcher(address, clock, static_cast<uint64_t>(100 + f));
    if (!store.ok()) return store.status();
    stores.push_back(*std::move(store));
  }
  absl::StatusOr<double> cpu_before = RedisCpuSeconds(info);
  if (!cpu_before.ok()) return cpu_before.status();
  std::vector<Step> per(static_cast<size_t>(fetchers));
  std::vector<std::string> errors(static_cast<size_t>(fetchers));
  std::atomic<bool> failed{false};
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::Seconds(o.seconds);
  std::vector<std::thread> threads;
  for (int f = 0; f < fetchers; ++f) {
    threads.emplace_back([&, f] {
      FetcherLoop(*stores[static_cast<size_t>(f)], o, f, fetchers, deadline,
                  per[static_cast<size_t>(f)], failed, errors[static_cast<size_t>(f)]);
    });
  }
  for (std::thread& t : threads) t.join();
  Step step{.fetchers = fetchers, .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start)};
  absl::StatusOr<double> cpu_after = RedisCpuSeconds(info);
  if (!cpu_after.ok()) return cpu_after.status();
  step.redis_cpu_seconds = *cpu_after - *cpu_before;
  for (size_t f = 0; f < per.size(); ++f) {
    step.claims += per[f].claims;
    step.granted += per[f].granted;
    step.exchanges += per[f].exchanges;
    if (step.error.empty()) step.error = errors[f];
  }
  return step;
}

std::string Report(const Options& o, const MemoryFigures& m, const std::vector<Step>& steps) {
  std::string out = absl::StrFormat(
      "Redis politeness at %d + %d hosts (%d hosts per address), batches of %d claims, %.1f s "
      "per step\n\nmemory (MEMORY USAGE): %.0f bytes per host hash, %.0f bytes per address hash; "
      "used_memory grew %.0f bytes per key (%.0f keys)\n\n"
      "| fetchers | claims/s | granted | round trips/s | Redis CPU per claim | claims/s per "
      "Redis core |\n|---|---|---|---|---|---|\n",
      o.hosts, o.hosts, o.hosts_per_address, o.batch, o.seconds, m.bytes_per_host,
      m.bytes_per_address, m.growth_per_key, m.keys);
  for (const Step& s : steps) {
    const double claims = static_cast<double>(s.claims);
    absl::StrAppendFormat(
        &out, "| %d | %.0f | %.3f | %.0f | %.2f us | %.0f |\n", s.fetchers, claims / s.wall_seconds,
        claims > 0 ? static_cast<double>(s.granted) / claims : 0,
        static_cast<double>(s.exchanges) / s.wall_seconds,
        claims > 0 ? 1e6 * s.redis_cpu_seconds / claims : 0,
        s.redis_cpu_seconds > 0 ? claims / s.redis_cpu_seconds : 0);
  }
  return out;
}

std::string Json(const Options& o, const MemoryFigures& m, const std::vector<Step>& steps) {
  std::string out = absl::StrFormat(
      "{\"hosts\": %d, \"hosts_per_address\": %d, \"batch\": %d, \"seconds\": %.3f, "
      "\"bytes_per_host\": %.1f, \"bytes_per_address\": %.1f, \"growth_per_key\": %.1f, "
      "\"steps\": [",
      o.hosts, o.hosts_per_address, o.batch, o.seconds, m.bytes_per_host, m.bytes_per_address,
      m.growth_per_key);
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    absl::StrAppendFormat(&out,
                          "%s{\"fetchers\": %d, \"claims\": %d, \"granted\": %d, "
                          "\"exchanges\": %d, \"wall_seconds\": %.3f, "
                          "\"redis_cpu_seconds\": %.3f}",
                          i == 0 ? "" : ", ", s.fetchers, s.claims, s.granted, s.exchanges,
                          s.wall_seconds, s.redis_cpu_seconds);
  }
  return out + "]}\n";
}

int Run(const Options& o) {
  redis::testing::LocalRedis server;
  if (!server.Start()) {
    std::fprintf(stderr, "redis-bench: redis-server did not start (is it installed?)\n");
    return 2;
  }
  absl::StatusOr<std::unique_ptr<redis::RedisConnection>> info =
      redis::RedisConnection::Connect({.address = server.address()});
  SystemClock clock;
  absl::StatusOr<std::unique_ptr<redis::RedisPoliteness>> store =
      NewFetcher(server.address(), clock, 1);
  if (!info.ok() || !store.ok()) {
    std::fprintf(stderr, "redis-bench: cannot reach the server: %s\n",
                 std::string((info.ok() ? store.status() : info.status()).message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "redis-bench: memory: %d + %d hosts...\n", static_cast<int>(o.hosts),
               static_cast<int>(o.hosts));
  absl::StatusOr<MemoryFigures> memory =
      MeasureMemory(o, **info, **store, redis::RedisPolitenessOptions{}.key_prefix);
  if (!memory.ok()) {
    std::fprintf(stderr, "redis-bench: %s\n", std::string(memory.status().message()).c_str());
    return 1;
  }
  std::vector<Step> steps;
  for (int fetchers : o.fetchers) {
    std::fprintf(stderr, "redis-bench: %d fetcher(s), %.1f s...\n", fetchers, o.seconds);
    absl::StatusOr<Step> step = RunStep(o, server.address(), **info, fetchers);
    if (!step.ok()) {
      std::fprintf(stderr, "redis-bench: %s\n", std::string(step.status().message()).c_str());
      return 1;
    }
    if (!step->error.empty()) {
      std::fprintf(stderr, "redis-bench: a claim failed: %s\n", step->error.c_str());
      return 1;
    }
    steps.push_back(*step);
  }
  std::printf("%s", Report(o, *memory, steps).c_str());
  if (!o.json.empty()) std::ofstream(o.json) << Json(o, *memory, steps);
  // The checks of a run, whatever its size: every step claimed and was granted claims, and the
  // memory figures are those of hashes (tens to hundreds of bytes, not 0, not kilobytes).
  bool ok = memory->bytes_per_host > 16 && memory->bytes_per_host < 4096 &&
            memory->bytes_per_address > 16 && memory->bytes_per_address < 4096;
  for (const Step& s : steps) ok = ok && s.claims > 0 && s.granted > 0;
  if (!ok) std::fprintf(stderr, "redis-bench: a check failed (see the table)\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace crawler::bench

int main(int argc, char** argv) {
  crawler::bench::Options o;
  CLI::App app(
      "Redis politeness at many hosts: memory per host and per address hash, and the claims one "
      "Redis serves to 1..N fetchers (docs/benchmarks.md). Starts its own redis-server on "
      "loopback. The default run takes about 30 s and 100 MB of memory in Redis.");
  app.add_option("--hosts", o.hosts, "hosts per memory phase (and twice as many claimed)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--hosts-per-address", o.hosts_per_address, "hosts sharing one address")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000}));
  app.add_option("--fetchers", o.fetchers, "fleet sizes, one step each")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--seconds", o.seconds, "length of each step")->check(CLI::Range(0.05, 3600.0));
  app.add_option("--batch", o.batch, "claims per round trip")
      ->check(CLI::Range(size_t{1}, size_t{10'000}));
  app.add_option("--json", o.json, "also write the figures here as JSON");
  CLI11_PARSE(app, argc, argv);
  return crawler::bench::Run(o);
}
