// An in-memory HttpTransport for the fetch loop's tests, and a Politeness wrapper that keeps the
// claims it granted: together they check the loop's contract with politeness on every request.
//
// FakeTransport answers each request from a table of raw responses by URL (404 for the rest),
// on the next Poll or, with SetLatency, after a seeded random number of polls, so that several
// requests of a host overlap. It records every request in order and every violation: a request
// without a granted claim of its own (ClaimLedger::Use), or more requests in flight on one host
// or one address than the politeness allows.
//
// ClaimLedger sits in front of the Politeness the fetcher is given and counts, per host, the
// claims granted and not yet used by a request: a claim granted for a host that then starts no
// request (a claim without a task) is left unused at the end. Exchange goes through to the inner
// Politeness as one batch, so a Redis store is exercised as the fetcher uses it.
//
// Test-only. Thread-safe.
#ifndef CRAWLER_TESTS_UNIT_FETCHER_FAKE_TRANSPORT_H_
#define CRAWLER_TESTS_UNIT_FETCHER_FAKE_TRANSPORT_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/politeness/politeness.h"
#include "lib/politeness/politeness_options.h"
#include "lib/random/splitmix64.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/http_transport.h"

namespace crawler::testing {

inline std::string Response(int status, const std::string& reason,
                            const std::string& content_type, const std::string& body) {
  return absl::StrCat("HTTP/1.1 ", status, " ", reason, "\r\nContent-Type: ", content_type,
                      "\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
}
inline std::string Html(const std::string& body) {
  return Response(200, "OK", "text/html", body);
}
inline std::string Text(const std::string& body) {
  return Response(200, "OK", "text/plain", body);
}

// Politeness without delays (the claims and connection limits still apply): for tests that pin
// the loop, not the delay policy.
inline politeness::PolitenessOptions NoDelay() {
  politeness::PolitenessOptions o;
  o.min_delay = absl::ZeroDuration();
  o.delay_factor = 0;
  o.jitter_fraction = 0;
  return o;
}

class ClaimLedger final : public politeness::Politeness {
 public:
  explicit ClaimLedger(politeness::Politeness& inner) : inner_(inner) {}

  absl::StatusOr<politeness::ClaimResult> Claim(const politeness::ClaimRequest& r) override {
    absl::StatusOr<politeness::ClaimResult> result = inner_.Claim(r);
    Record(r, result);
    return result;
  }
  absl::StatusOr<politeness::ReleaseResult> Release(const politeness::ReleaseRequest& r) override {
    {
      absl::MutexLock lock(&mu_);
      ++released_;
    }
    return inner_.Release(r);
  }
  Exchanged Exchange(std::span<const politeness::ReleaseRequest> releases,
                     std::span<const politeness::ClaimRequest> claims) override {
    Exchanged out = inner_.Exchange(releases, claims);
    {
      absl::MutexLock lock(&mu_);
      released_ += static_cast<int>(releases.size());
    }
    for (size_t i = 0; i < claims.size() && i < out.claimed.size(); ++i) {
      Record(claims[i], out.claimed[i]);
    }
    return out;
  }
  int MaxConnectionsPerHost() const override { return inner_.MaxConnectionsPerHost(); }
  politeness::PolitenessStats Stats() const override { return inner_.Stats(); }

  // A request of `host_key` starts: false if no granted claim is left for it.
  bool Use(const std::string& host_key) {
    absl::MutexLock lock(&mu_);
    int& unused = unused_[host_key];
    if (unused == 0) return false;
    --unused;
    return true;
  }
  int granted() const {
    absl::MutexLock lock(&mu_);
    return granted_;
  }
  int released() const {
    absl::MutexLock lock(&mu_);
    return released_;
  }
  // Claims granted that no request used, by host (hosts with none left out).
  std::map<std::string, int> unused() const {
    absl::MutexLock lock(&mu_);
    std::map<std::string, int> out;
    for (const auto& [host, n] : unused_) {
      if (n != 0) out[host] = n;
    }
    return out;
  }

 private:
  void Record(const politeness::ClaimRequest& r,
              const absl::StatusOr<politeness::ClaimResult>& result) {
    if (!result.ok() || !result->granted) return;
    absl::MutexLock lock(&mu_);
    ++unused_[r.host_key];
    ++granted_;
  }

  politeness::Politeness& inner_;
  mutable absl::Mutex mu_;
  std::map<std::string, int> unused_ ABSL_GUARDED_BY(mu_);
  int granted_ ABSL_GUARDED_BY(mu_) = 0;
  int released_ ABSL_GUARDED_BY(mu_) = 0;
};

class FakeTransport final : public fetcher::HttpTransport {
 public:
  // `max_per_host`: requests allowed in flight on one host, and on one address.
  explicit FakeTransport(ClaimLedger& ledger, int max_per_host = 1)
      : ledger_(ledger), max_per_host_(max_per_host) {}

  void Set(const std::string& url, std::string response) {
    absl::MutexLock lock(&mu_);
    table_[url] = std::move(response);
  }
  // Each request is answered after min_polls..max_polls polls, drawn from `seed`.
  void SetLatency(uint64_t seed, int min_polls, int max_polls) {
    absl::MutexLock lock(&mu_);
    rng_ = random::SplitMix64(seed);
    min_polls_ = min_polls;
    max_polls_ = std::max(min_polls, max_polls);
  }

  // While held, requests start but none progresses: a poll answers nothing and leaves them
  // their polls to go.
  void set_hold(bool hold) {
    absl::MutexLock lock(&mu_);
    hold_ = hold;
  }

  void Start(fetcher::HttpRequest request) override {
    absl::MutexLock lock(&mu_);
    if (!ledger_.Use(request.host)) violations_.push_back("no claim for " + request.url);
    if (++in_flight_by_host_[request.host] > max_per_host_) {
      violations_.push_back(absl::StrCat(in_flight_by_host_[request.host],
                                         " requests in flight on ", request.host));
    }
    if (!request.ip.empty() && ++in_flight_by_ip_[request.ip] > max_per_host_) {
      violations_.push_back(absl::StrCat(in_flight_by_ip_[request.ip],
                                         " requests in flight on address ", request.ip));
    }
    requests_.push_back(request.url);
    const int polls =
        min_polls_ + static_cast<int>(rng_.Next() % (max_polls_ - min_polls_ + 1));
    queued_.push_back(Queued{std::move(request), polls});
  }

  std::vector<fetcher::HttpResult> Poll(absl::Duration timeout) override {
    absl::MutexLock lock(&mu_);
    // Waits for a wake-up or the timeout, as a network poll would, unless there is work.
    mu_.AwaitWithTimeout(absl::Condition(
                             +[](FakeTransport* t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t->mu_) {
                               return t->woken_ || !t->queued_.empty();
                             },
                             this),
                         timeout);
    woken_ = false;
    std::vector<fetcher::HttpResult> out;
    if (hold_) return out;
    std::vector<Queued> later;
    for (Queued& q : queued_) {
      if (q.polls_left-- > 0) {
        later.push_back(std::move(q));
      } else {
        out.push_back(Answer(q.request));
      }
    }
    queued_ = std::move(later);
    return out;
  }

  size_t in_flight() const override {
    absl::MutexLock lock(&mu_);
    return queued_.size();
  }

  void Wakeup() override {
    absl::MutexLock lock(&mu_);
    woken_ = true;
  }

  std::vector<std::string> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::vector<std::string> violations() const {
    absl::MutexLock lock(&mu_);
    return violations_;
  }
  // The most requests ever in flight on one host at once.
  int max_in_flight_on_a_host() const {
    absl::MutexLock lock(&mu_);
    return max_seen_on_a_host_;
  }

 private:
  struct Queued {
    fetcher::HttpRequest request;
    int polls_left = 0;
  };

  fetcher::HttpResult Answer(const fetcher::HttpRequest& r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    max_seen_on_a_host_ = std::max(max_seen_on_a_host_, in_flight_by_host_[r.host]);
    --in_flight_by_host_[r.host];
    if (!r.ip.empty()) --in_flight_by_ip_[r.ip];
    auto it = table_.find(r.url);
    const std::string raw = it != table_.end()
                                ? it->second
                                : Response(404, "Not Found", "text/plain", "no such page");
    const size_t end = raw.find("\r\n\r\n") + 4;
    const std::string path = r.url.substr(r.url.find('/', r.url.find("//") + 2));
    fetcher::HttpResult result;
    result.id = r.id;
    result.raw_headers = raw.substr(0, end);
    result.body = raw.substr(end);
    result.request_head = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: ", r.host, "\r\n\r\n");
    result.remote_ip = r.ip;
    result.total_time = absl::Milliseconds(1);
    return result;
  }

  ClaimLedger& ledger_;
  const int max_per_host_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> table_ ABSL_GUARDED_BY(mu_);
  std::vector<Queued> queued_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> in_flight_by_host_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> in_flight_by_ip_ ABSL_GUARDED_BY(mu_);
  int max_seen_on_a_host_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> violations_ ABSL_GUARDED_BY(mu_);
  random::SplitMix64 rng_ ABSL_GUARDED_BY(mu_){1};
  int min_polls_ ABSL_GUARDED_BY(mu_) = 0;
  int max_polls_ ABSL_GUARDED_BY(mu_) = 0;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
};

// Runs `fetcher` on a thread of its own until Run returns; calls Stop() once `until` holds. Past
// `limit` the run is a test failure (a hang): the fetcher is stopped and this returns.
inline absl::Status RunBounded(fetcher::Fetcher& fetcher, absl::Duration limit,
                               const std::function<bool(const fetcher::Fetcher&)>& until = nullptr) {
  absl::Status status = absl::UnknownError("Run did not return");
  absl::Notification done;
  std::thread runner([&] {
    status = fetcher.Run();
    done.Notify();
  });
  const absl::Time deadline = absl::Now() + limit;
  bool stopped = false;
  while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(2))) {
    if (!stopped && until != nullptr && until(fetcher)) {
      fetcher.Stop();
      stopped = true;
    }
    if (absl::Now() > deadline) {
      ADD_FAILURE() << "fetcher still running after " << limit;
      fetcher.Stop();
      done.WaitForNotification();
      break;
    }
  }
  runner.join();
  return status;
}

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_FETCHER_FAKE_TRANSPORT_H_
