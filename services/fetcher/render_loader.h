// RenderLoader: the crawler's answer to the requests of a page being rendered (browser::
// ResourceLoader, lib/browser/browser.h). Each request goes out through the crawler's own HTTP
// client, as every fetch does, on a thread of its own:
//   - GET only (a page's POSTs, form submissions and beacons are refused: a crawler sends no
//     data to the sites it archives);
//   - http and https only; the host resolved and its address checked by the SSRF guard, and again
//     at connect time by the client; an IP literal is checked even with connect_to, so a page on
//     the test web cannot reach the metadata or a private address either;
//   - each exchange archived as WARC response + request records, like a page's;
//   - the body given to the browser decoded (transfer and content codings undone), bounded by
//     the client's max_body_bytes.
// Scripts and style sheets answered 200 are kept in memory (cache_bytes, least recently used
// dropped first; not those marked no-store, no-cache or private) and served again to later
// renders without a request: every page of a site loads the same /app.js, and a fresh browser
// context per page has no cache of its own. A copy is archived once, when it was fetched.
//
// Subresources are not paced by the host's crawl delay (a browser loading one page does not
// either); what bounds them is the render's own limits (requests and bytes per page,
// browser::RenderLimits), max_in_flight here, and the pages rendered at once.
//
// Thread-safety: Load may be called from any thread; answers come from the loader's thread.
#ifndef CRAWLER_SERVICES_FETCHER_RENDER_LOADER_H_
#define CRAWLER_SERVICES_FETCHER_RENDER_LOADER_H_

#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/browser/browser.h"
#include "lib/net/address_policy.h"
#include "lib/warc/warc_writer.h"
#include "services/fetcher/http_client.h"
#include "services/fetcher/http_transport.h"
#include "services/fetcher/resolver.h"

namespace crawler::fetcher {

struct RenderLoaderOptions {
  HttpClientOptions http;     // the crawl's own: user agent, caps, timeouts, connect_to
  size_t max_in_flight = 32;  // transfers at once; more wait their turn
  size_t max_decoded_bytes = 32u << 20;
  size_t cache_bytes = 64u << 20;  // scripts and style sheets kept for later renders; 0: none
};

struct RenderLoaderStats {
  uint64_t requests = 0;  // asked for
  uint64_t fetched = 0;   // answered with a response
  uint64_t refused = 0;   // method, scheme, address
  uint64_t failed = 0;    // network errors, undecodable bodies
  uint64_t bytes = 0;     // decoded bytes given to browsers
  uint64_t cache_hits = 0;  // answered from the cache, no request sent
};

class RenderLoader final : public browser::ResourceLoader {
 public:
  // `warc` may be null (nothing archived). `transport`: null for an HttpClient made from
  // options.http (tests give their own). All must outlive the loader.
  static absl::StatusOr<std::unique_ptr<RenderLoader>> Create(const RenderLoaderOptions& options,
                                                              Resolver& resolver,
                                                              const net::AddressPolicy& guard,
                                                              warc::WarcWriter* warc,
                                                              HttpTransport* transport = nullptr);
  // Stops the thread; requests not answered yet are answered with an error.
  ~RenderLoader() override;

  void Load(browser::ResourceRequest request,
            absl::AnyInvocable<void(browser::ResourceResponse) &&> done) override;

  RenderLoaderStats Stats() const;
  // Not OK once a WARC write failed (the records of a subresource are then missing).
  absl::Status archive_status() const;

 private:
  struct Job {
    browser::ResourceRequest request;
    absl::AnyInvocable<void(browser::ResourceResponse) &&> done;
  };
  RenderLoader(const RenderLoaderOptions& options, Resolver& resolver,
               const net::AddressPolicy& guard, warc::WarcWriter* warc,
               std::unique_ptr<HttpTransport> owned, HttpTransport& transport,
               std::string connect_to_ip);
  void Run();
  // Starts `job`'s transfer, or answers it at once with the reason it is refused.
  void Begin(uint64_t id, Job& job);
  browser::ResourceResponse Finish(const HttpResult& result, const std::string& url);
  void Answer(Job job, browser::ResourceResponse response);
  // The cached answer for `request`, if any (and counts the hit).
  std::optional<browser::ResourceResponse> Cached(const browser::ResourceRequest& request);
  void Keep(const browser::ResourceRequest& request, const browser::ResourceResponse& response);

  const RenderLoaderOptions options_;
  Resolver& resolver_;
  const net::AddressPolicy& guard_;
  warc::WarcWriter* const warc_;
  std::unique_ptr<HttpTransport> owned_transport_;
  HttpTransport& transport_;
  const std::string connect_to_ip_;  // with connect_to: every request's address

  mutable absl::Mutex mu_;
  std::deque<Job> queued_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  RenderLoaderStats stats_ ABSL_GUARDED_BY(mu_);
  absl::Status archive_status_ ABSL_GUARDED_BY(mu_);
  // The cache: URL -> answer and its place in cache_order_ (least to most recently used).
  struct CacheEntry {
    browser::ResourceResponse response;
    std::list<std::string>::iterator order;
  };
  absl::flat_hash_map<std::string, CacheEntry> cache_ ABSL_GUARDED_BY(mu_);
  std::list<std::string> cache_order_ ABSL_GUARDED_BY(mu_);
  size_t cache_held_ ABSL_GUARDED_BY(mu_) = 0;

  // The loader thread's own.
  absl::flat_hash_map<uint64_t, Job> in_flight_;
  uint64_t next_id_ = 1;
  std::thread thread_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_RENDER_LOADER_H_
