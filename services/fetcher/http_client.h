// HttpClient: many concurrent HTTP GETs driven from one thread with libcurl's multi interface
// (docs/architecture.md §6). It is the only code that talks HTTP; everything it returns is raw: the
// header block and body exactly as received (neither chunked transfer coding nor content codings
// undone), because WARC records store the message as transferred. Decoding and parsing happen
// elsewhere (lib/http, lib/html).
//
// What it enforces on every transfer:
//   - no automatic redirects (a redirect target is a new URL for scope, seen-set, politeness);
//   - caps: header bytes (abort), body bytes (keep the prefix, mark truncated), total time,
//     connect time, and a minimum transfer speed (a slow-drip server is cut off);
//   - the address: each request is pinned to the address the caller resolved and checked
//     (CURLOPT_RESOLVE; with connect_to, CONNECT_TO changes the port and RESOLVE the address),
//     and the SSRF guard checks again at connect time (CURLOPT_OPENSOCKETFUNCTION), so DNS cannot
//     hand curl a different, forbidden address.
// Connections are reused across transfers (keep-alive), per the multi handle's connection cache,
// which keys connections by host name and port (also with connect_to).
//
// Cost: event-driven (curl_multi_socket_action over epoll), so a Poll turn costs O(sockets that
// are ready), not O(transfers); easy handles are reused with their constant options set once.
//
// Thread-safety: one thread drives Start/Poll; Wakeup() may be called from any thread to cut a
// Poll short (or make the next one return at once).
#ifndef CRAWLER_SERVICES_FETCHER_HTTP_CLIENT_H_
#define CRAWLER_SERVICES_FETCHER_HTTP_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/net/address_policy.h"
#include "services/fetcher/http_transport.h"

namespace crawler::fetcher {

inline constexpr int kMaxConnectionShards = 256;

struct HttpClientOptions {
  std::string user_agent = "crawler/0.1";
  absl::Duration connect_timeout = absl::Seconds(10);
  absl::Duration total_timeout = absl::Seconds(60);
  // Abort when fewer than low_speed_bytes_per_second arrive for low_speed_time (slow drip).
  int64_t low_speed_bytes_per_second = 100;
  absl::Duration low_speed_time = absl::Seconds(20);
  // Bytes of body kept (as transferred, i.e. compressed if the server compressed); beyond it the
  // transfer is cut and the result marked truncated (WARC-Truncated: length).
  size_t max_body_bytes = 16 << 20;
  // Bytes of body held in memory over all transfers, from the first byte received until the
  // result is destroyed (after the page is processed): the memory budget of responses in flight.
  // A transfer that would grow past it is paused (its socket is not read; the server waits) and
  // resumed when bodies are released. When every body that holds memory is paused, the oldest
  // paused transfer may overdraw, so the crawl cannot stall: the peak is at most
  // body_memory_bytes + max_body_bytes. Without the budget the peak is max_in_flight x
  // max_body_bytes (256 x 16 MiB = 4 GiB by default). Must be >= max_body_bytes.
  size_t body_memory_bytes = size_t{512} << 20;
  size_t max_header_bytes = 64 << 10;
  // Sent as Accept-Encoding; libcurl does not decode (lib/http does, bounded).
  std::string accept_encoding = "gzip, deflate, br";
  // Certificate checks. Off by default, as archival crawlers do: an expired or self-signed
  // certificate is common on long-tail sites, the crawler sends no secrets, and refusing would
  // only lose the page.
  bool verify_tls = false;
  // "HOST:PORT": every request connects there whatever its URL says, for crawling a local
  // synthetic web. The SSRF guard still applies to HOST. With an IP literal as HOST (what the
  // fetcher requires) connections are still cached per URL host, as in a real crawl; a host name
  // makes every host share one cache bucket, each lookup walking all cached connections.
  std::string connect_to;
  // Keep the request head as sent (for WARC request records).
  bool capture_request = true;
  // Idle connections kept for reuse. A polite crawl keeps one per host it cycles through (the
  // hosts it fetches from within a delay); 2,048 held a crawl of 3,000 hosts at a 1 s delay to
  // half its bound (docs/benchmarks.md). Past this many open sockets a transfer's connection is
  // closed when it is done rather than cached, so libcurl never evicts (its eviction walks the
  // whole cache for every new connection). At most half the open-file limit
  // (service::OpenFileLimit()), which leaves the other half to transfers, RocksDB and WARC.
  int max_cached_connections = 8192;
  // Multi handles the transfers are spread over, by host (a host always uses the same one, so
  // its connections are found again). libcurl 7.88 walks a multi handle's connection cache (up to
  // the transfer's own connection) when a finished transfer is removed and, at least once a
  // second, when a transfer looks for a connection to reuse; and finds a host's connections in a hash of 97 chains. With thousands of
  // hosts cached those walks took most of the network thread's time (docs/benchmarks.md): each
  // shard holds a 1/connection_shards part of the cache. 1..kMaxConnectionShards.
  int connection_shards = 16;
  // Header lines sent with every request, "Name: value" (e.g. "From: ops@example.org", which
  // RFC 9110 §10.1.2 suggests for robots). Validated by HttpClient::Create: no line breaks.
  std::vector<std::string> extra_headers;
};

// The production HttpTransport.
class HttpClient final : public HttpTransport {
 public:
  // Errors: kInvalidArgument for bad options (connect_to), kInternal if libcurl cannot start.
  static absl::StatusOr<std::unique_ptr<HttpClient>> Create(const HttpClientOptions& options,
                                                            net::AddressPolicy guard);
  ~HttpClient() override;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Queues a transfer; it starts on the next Poll.
  void Start(HttpRequest request) override;
  // Drives transfers, waiting up to `timeout` for network activity; returns those that ended.
  std::vector<HttpResult> Poll(absl::Duration timeout) override;
  // Transfers started and not yet returned by Poll.
  size_t in_flight() const override;
  // Body bytes held against options.body_memory_bytes (transfers and results not yet
  // destroyed), and transfers paused now for want of it. Thread-safe.
  size_t body_memory_held() const;
  size_t paused_for_memory() const;
  // Makes a blocked Poll return early. Thread-safe.
  void Wakeup() override;

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_HTTP_CLIENT_H_
