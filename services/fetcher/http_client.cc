#include "services/fetcher/http_client.h"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/http/response_head.h"
#include "lib/net/ip_address.h"
#include "services/common/open_file_limit.h"

namespace crawler::fetcher {
namespace {

constexpr const char* kAccept =
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::string_view TransportErrorName(TransportError error) {
  switch (error) {
    case TransportError::kNone:
      return "none";
    case TransportError::kTimeout:
      return "timeout";
    case TransportError::kHeaderTimeout:
      return "header_timeout";
    case TransportError::kBodyTimeout:
      return "body_timeout";
    case TransportError::kBadChunking:
      return "bad_chunking";
    case TransportError::kConnectFailed:
      return "connect_failed";
    case TransportError::kAddressRefused:
      return "address_refused";
    case TransportError::kHeaderTooLarge:
      return "header_too_large";
    case TransportError::kTls:
      return "tls";
    case TransportError::kProtocol:
      return "protocol";
    case TransportError::kOther:
      return "other";
  }
  return "other";
}

struct Transfer;
struct Shard;

// The memory budget of bodies (HttpClientOptions::body_memory_bytes). `held` counts the bytes
// reserved for bodies of transfers and of results not yet destroyed; results release theirs
// from whichever thread destroys them (a page-processing worker), so it is atomic, and shared
// with the results (they may outlive the client). The rest belongs to the Start/Poll thread.
struct BodyMemory {
  explicit BodyMemory(size_t limit_bytes) : limit(limit_bytes) {}

  const size_t limit;
  std::atomic<size_t> held{0};
  std::atomic<size_t> paused_count{0};

  // ---- the Start/Poll thread's
  std::deque<Transfer*> paused;  // oldest first
  size_t paused_held = 0;        // bytes held by the paused transfers

  // Reserves n bytes unless that would pass the limit.
  bool TryCharge(size_t n) {
    size_t current = held.load(std::memory_order_relaxed);
    do {
      if (current + n > limit) return false;
    } while (!held.compare_exchange_weak(current, current + n, std::memory_order_relaxed));
    return true;
  }

  // Returns n bytes; wakes the Poll thread when transfers wait for them.
  void Release(size_t n) {
    held.fetch_sub(n, std::memory_order_relaxed);
    if (paused_count.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard<std::mutex> lock(wake_mu);
    if (wake_fd >= 0) {
      const uint64_t one = 1;
      [[maybe_unused]] const ssize_t written = ::write(wake_fd, &one, sizeof one);
    }
  }

  std::mutex wake_mu;
  int wake_fd = -1;  // the client's eventfd; -1 once the client is gone
};

// One easy handle with its per-transfer state. Pooled: the handle keeps its constant options
// (set once, pointing at this object) across transfers; only URL, headers and the pinned address
// change per request. Owned by Impl::pool.
struct Transfer {
  CURL* easy = nullptr;
  const HttpClientOptions* options = nullptr;
  const net::AddressPolicy* guard = nullptr;
  HttpResult result;
  curl_slist* extra_headers = nullptr;  // constant headers + the request's; null if none
  curl_slist* resolve = nullptr;
  std::string unpin;  // "-HOST:PORT": drops this transfer's pinned address from the DNS cache
  size_t* open_sockets = nullptr;  // HttpClient::Impl::open_sockets
  bool header_too_large = false;
  bool address_refused = false;
  bool in_multi = false;
  Shard* shard = nullptr;  // the multi handle of the request's host (set per request)
  BodyMemory* memory = nullptr;
  size_t charged = 0;      // bytes of `memory` reserved for result.body
  bool paused = false;     // waiting in memory->paused
  bool overdraft = false;  // may grow past the budget (it alone was left to make progress)
  char error_buffer[CURL_ERROR_SIZE] = {};  // libcurl's detail of the last failure

  ~Transfer() {
    curl_easy_cleanup(easy);  // first: the handle points at the lists
    curl_slist_free_all(extra_headers);
    curl_slist_free_all(resolve);
  }
};

// One multi handle with the transfers of its share of the hosts
// (HttpClientOptions::connection_shards): its connection cache, DNS cache and timer. Owned by
// HttpClient::Impl::shards.
struct Shard {
  CURLM* multi = nullptr;
  uint32_t index = 0;  // in HttpClient::Impl::shards; tags its sockets' epoll events
  int epoll_fd = -1;   // the client's
  std::optional<std::chrono::steady_clock::time_point> timer;  // CURLMOPT_TIMERFUNCTION's
  // The pins of finished transfers, removed from this handle's DNS cache when its next transfer
  // starts.
  std::vector<std::string> unpin;
};

namespace {

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->result.raw_headers.size() + n > t->options->max_header_bytes) {
    t->header_too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->result.raw_headers.append(data, n);
  return n;
}

// Smallest reservation for a body: small pages take one step, and a transfer does not come
// back to the budget for every network read.
constexpr size_t kMinBodyReserve = 64 << 10;

// Makes room for `need` bytes of body, charging the budget for the growth (doubling, capped at
// max_body_bytes). False when the budget is spent: the transfer is then queued as paused, and
// the caller pauses it.
bool ReserveBody(Transfer& t, size_t need) {
  if (need <= t.charged) return true;
  const size_t cap =
      std::min(t.options->max_body_bytes, std::max({need, 2 * t.charged, kMinBodyReserve}));
  const size_t grow = cap - t.charged;
  BodyMemory& memory = *t.memory;
  if (t.overdraft) {
    memory.held.fetch_add(grow, std::memory_order_relaxed);
  } else if (!memory.TryCharge(grow)) {
    t.paused = true;
    memory.paused.push_back(&t);
    memory.paused_held += t.charged;
    memory.paused_count.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  t.result.body.reserve(cap);
  t.charged = cap;
  return true;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const size_t room = t->options->max_body_bytes - t->result.body.size();
  // libcurl keeps the data of a paused write and offers it again when the transfer resumes.
  if (!ReserveBody(*t, t->result.body.size() + std::min(n, room))) return CURL_WRITEFUNC_PAUSE;
  if (n > room) {
    t->result.body.append(data, room);
    t->result.truncated = "length";
    return 0;  // stop reading: we have all we keep
  }
  t->result.body.append(data, n);
  return n;
}

int OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  if (type == CURLINFO_HEADER_OUT)
    static_cast<Transfer*>(user)->result.request_head.append(data, size);
  return 0;
}

curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  absl::StatusOr<net::IpAddress> ip = net::IpAddress::FromSockaddr(&address->addr);
  if (!ip.ok() || !t->guard->IsAllowed(*ip)) {
    t->address_refused = true;
    return CURL_SOCKET_BAD;
  }
  const curl_socket_t s =
      ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (s != CURL_SOCKET_BAD) ++*t->open_sockets;
  return s;
}

// CURLOPT_CLOSESOCKETFUNCTION. libcurl keeps the callback and its pointer with the connection,
// so a cached connection closed later (evicted, or at curl_multi_cleanup) is counted too.
int OnCloseSocket(void* open_sockets, curl_socket_t s) {
  auto* count = static_cast<size_t*>(open_sockets);
  if (*count > 0) --*count;
  return ::close(s);
}

TransportError Classify(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      return TransportError::kConnectFailed;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      return TransportError::kTls;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_HTTP2:
    case CURLE_BAD_CONTENT_ENCODING:
      return TransportError::kProtocol;
    default:
      return TransportError::kOther;
  }
}

// "+HOST:PORT:IP" for CURLOPT_RESOLVE. The "+" makes the DNS-cache entry expire like a looked-up
// one: without it every host ever crawled would stay in the multi handle's cache for good. It is
// loaded again at the start of each transfer, so expiry never unpins a request.
std::string ResolveEntry(const std::string& host, uint16_t port, const std::string& ip) {
  const bool v6 = ip.find(':') != std::string::npos;
  return absl::StrCat("+", host, ":", port, ":", v6 ? "[" : "", ip, v6 ? "]" : "");
}

// "-HOST:PORT" for CURLOPT_RESOLVE: removes the entry ResolveEntry() made.
std::string UnpinEntry(const std::string& host, uint16_t port) {
  return absl::StrCat("-", host, ":", port);
}

using SteadyTime = std::chrono::steady_clock::time_point;

// True once the final response head (not a 1xx interim one) has arrived in full.
bool HeadComplete(const std::string& raw_headers) {
  if (!absl::EndsWith(raw_headers, "\r\n\r\n") && !absl::EndsWith(raw_headers, "\n\n")) {
    return false;
  }
  const std::optional<int> status = http::ResponseHead::PeekStatus(raw_headers);
  return status.has_value() && *status >= 200;
}

}  // namespace

struct HttpClient::Impl {
  // ---- constant after Create
  HttpClientOptions options;
  net::AddressPolicy guard;
  std::vector<std::unique_ptr<Shard>> shards;
  int epoll_fd = -1;
  int wake_fd = -1;  // eventfd: Wakeup() writes, Poll drains
  curl_slist* constant_headers = nullptr;
  curl_slist* connect_to = nullptr;
  // With connect_to to an IP literal: the address and port every request is pinned to.
  std::string connect_to_ip;
  uint16_t connect_to_port = 0;

  std::shared_ptr<BodyMemory> memory;

  // ---- the Start/Poll thread's
  std::vector<std::unique_ptr<Transfer>> pool;  // every handle ever made (bounded by peak)
  std::vector<Transfer*> idle;
  std::vector<Transfer*> queued;
  size_t running = 0;
  // Sockets open now, the transfers' and the cached connections' (OnOpenSocket, OnCloseSocket).
  size_t open_sockets = 0;
  size_t max_cached = 1;  // over all shards
  std::vector<epoll_event> events = std::vector<epoll_event>(256);
  bool pwait2_available = true;

  ~Impl() {
    if (memory != nullptr) {
      std::lock_guard<std::mutex> lock(memory->wake_mu);
      memory->wake_fd = -1;
    }
    for (std::unique_ptr<Transfer>& t : pool) {
      if (t->in_multi) curl_multi_remove_handle(t->shard->multi, t->easy);
    }
    pool.clear();
    // May still call OnSocket (closing cached connections): the fds are closed after it.
    for (std::unique_ptr<Shard>& shard : shards) {
      if (shard->multi != nullptr) curl_multi_cleanup(shard->multi);
    }
    curl_slist_free_all(constant_headers);
    curl_slist_free_all(connect_to);
    if (wake_fd >= 0) ::close(wake_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
  }

  // CURLMOPT_SOCKETFUNCTION: mirrors libcurl's interest in a socket into the epoll set. socketp
  // (curl_multi_assign) marks sockets already added, so a change is one epoll_ctl.
  // The event's data is the socket and its shard (SocketEvent).
  static int OnSocket(CURL*, curl_socket_t s, int what, void* user, void* socketp) {
    auto* shard = static_cast<Shard*>(user);
    if (what == CURL_POLL_REMOVE) {
      ::epoll_ctl(shard->epoll_fd, EPOLL_CTL_DEL, s, nullptr);  // fails harmlessly if closed
      return 0;
    }
    epoll_event ev{};
    ev.events =
        ((what & CURL_POLL_IN) != 0 ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) != 0 ? EPOLLOUT : 0u);
    ev.data.u64 = SocketEvent(shard->index, s);
    const bool added = socketp != nullptr;
    if (::epoll_ctl(shard->epoll_fd, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) != 0) {
      // The fd's registration went away behind libcurl's back (closed and reused) or outlived
      // it: do the other operation.
      ::epoll_ctl(shard->epoll_fd, added ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, s, &ev);
    }
    if (!added) curl_multi_assign(shard->multi, s, shard);
    return 0;
  }

  // epoll_event::data of a socket: its shard in the high half, the fd in the low half.
  static uint64_t SocketEvent(uint32_t shard, curl_socket_t s) {
    return uint64_t{shard} << 32 | static_cast<uint32_t>(s);
  }
  // The wake_fd's: no shard has this index.
  static constexpr uint64_t kWakeEvent = ~uint64_t{0};

  // CURLMOPT_TIMERFUNCTION: -1 deletes the timer, 0 means "as soon as possible". libcurl must
  // not be called back from here; Poll acts on the deadline.
  static int OnTimer(CURLM*, long timeout_ms, void* user) {
    auto* shard = static_cast<Shard*>(user);
    if (timeout_ms < 0) {
      shard->timer.reset();
    } else {
      shard->timer = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  // The shard of a request's host: every request for a host goes through the same multi handle,
  // so its connections are found again.
  Shard& ShardOf(const HttpRequest& request) {
    if (shards.size() == 1) return *shards.front();
    return *shards[std::hash<std::string_view>{}(request.host) % shards.size()];
  }

  Transfer* TakeTransfer() {
    if (!idle.empty()) {
      Transfer* t = idle.back();
      idle.pop_back();
      return t;
    }
    auto owned = std::make_unique<Transfer>();
    Transfer* t = owned.get();
    t->easy = curl_easy_init();
    if (t->easy == nullptr) std::abort();  // out of memory
    t->options = &options;
    t->guard = &guard;
    t->memory = memory.get();
    ConfigureOnce(*t);
    pool.push_back(std::move(owned));
    return t;
  }

  // The options every transfer shares; they survive between transfers on the same handle.
  void ConfigureOnce(Transfer& t) {
    CURL* e = t.easy;
    curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    // No proxy, whatever the environment says (http_proxy, all_proxy, ...): the SSRF guard, the
    // pinned address and per-IP politeness all concern the host's own address, which a proxy
    // would hide. An empty no-proxy list also spares libcurl its getenv calls per transfer.
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_NOPROXY, "");
    // HTTP/1.1 keeps WARC response records byte-faithful (HTTP/2 has no textual message form).
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(e, CURLOPT_USERAGENT, options.user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(options.connect_timeout)));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(options.total_timeout)));
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT,
                     static_cast<long>(options.low_speed_bytes_per_second));
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(absl::ToInt64Seconds(options.low_speed_time)));
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, options.verify_tls ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, options.verify_tls ? 2L : 0L);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &t);
    t.open_sockets = &open_sockets;
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, OnCloseSocket);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, &open_sockets);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer);
    if (options.capture_request) {
      curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, OnDebug);
      curl_easy_setopt(e, CURLOPT_DEBUGDATA, &t);
      curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
    }
    // Keep chunked framing in the body too (lib/http/chunked_decoder.h removes it): the WARC
    // record must match its own Transfer-Encoding header.
    curl_easy_setopt(e, CURLOPT_HTTP_TRANSFER_DECODING, 0L);
    if (connect_to != nullptr) curl_easy_setopt(e, CURLOPT_CONNECT_TO, connect_to);
    // libcurl prunes expired entries from the multi handle's DNS cache after every transfer by
    // walking the whole cache: with a pinned entry per host, thousands of hosts made that walk
    // most of the network thread's time. Entries never expire instead, and each transfer's pin
    // is removed once it is done (Configure), so the cache holds about the transfers in flight.
    curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, -1L);
  }

  // The per-request options. Everything a previous request set is overwritten or cleared here.
  void Configure(Transfer& t, const HttpRequest& request) {
    CURL* e = t.easy;
    t.shard = &ShardOf(request);
    t.result = HttpResult{};
    t.result.id = request.id;
    t.charged = 0;
    t.paused = false;
    t.overdraft = false;
    t.header_too_large = false;
    t.address_refused = false;
    t.error_buffer[0] = '\0';
    curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
    // Content codings are requested by hand (constant_headers) so libcurl does not decode: the
    // WARC keeps the bytes as sent, lib/http decodes with a cap.
    curl_slist* old_headers = t.extra_headers;
    t.extra_headers = nullptr;
    if (!request.extra_headers.empty()) {
      for (const curl_slist* h = constant_headers; h != nullptr; h = h->next) {
        t.extra_headers = curl_slist_append(t.extra_headers, h->data);
      }
      for (const std::string& h : request.extra_headers) {
        t.extra_headers = curl_slist_append(t.extra_headers, h.c_str());
      }
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER,
                     t.extra_headers != nullptr ? t.extra_headers : constant_headers);
    curl_slist_free_all(old_headers);  // after the handle stopped pointing at it
    // Pinning: set on every request (libcurl loads RESOLVE entries when a transfer starts).
    // An IPv6-literal host ("[::1]") is connected to as written: libcurl does not look it up,
    // and cannot parse it in a RESOLVE entry.
    const bool ipv6_literal = absl::StartsWith(request.host, "[");
    std::string entry;
    if (ipv6_literal) {
      // nothing to pin
    } else if (!connect_to_ip.empty()) {
      entry = ResolveEntry(request.host, connect_to_port, connect_to_ip);
    } else if (connect_to == nullptr && !request.ip.empty()) {
      entry = ResolveEntry(request.host, request.port, request.ip);
    }
    // The pins of transfers done since the last start go first, so that a host fetched again
    // right away is removed and then pinned anew.
    curl_slist* old_resolve = t.resolve;
    t.resolve = nullptr;
    std::vector<std::string>& unpin = t.shard->unpin;
    for (const std::string& done : unpin) t.resolve = curl_slist_append(t.resolve, done.c_str());
    unpin.clear();
    if (!entry.empty()) {
      t.resolve = curl_slist_append(t.resolve, entry.c_str());
      t.unpin = UnpinEntry(request.host, !connect_to_ip.empty() ? connect_to_port : request.port);
    } else {
      t.unpin.clear();
    }
    curl_easy_setopt(e, CURLOPT_RESOLVE, t.resolve);
    curl_slist_free_all(old_resolve);
    // Keep the connection for the host's next request only while the cache has room for it and
    // for every transfer running: when it is full, libcurl's eviction walks all cached
    // connections for every new one. A host past that room connects anew next time instead.
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, open_sockets + running < max_cached ? 0L : 1L);
  }

  HttpResult Finish(Transfer* t, CURLcode code) {
    if (t->paused) Unqueue(*t);
    HttpResult result = std::move(t->result);
    if (t->charged > 0) {
      // The result holds the body's bytes now: they are returned when it is destroyed.
      result.body_memory = std::shared_ptr<const void>(
          nullptr, [memory = memory, n = t->charged](const void*) { memory->Release(n); });
      t->charged = 0;
    }
    const absl::string_view detail(t->error_buffer);
    if (t->address_refused) {
      result.error = TransportError::kAddressRefused;
    } else if (t->header_too_large) {
      result.error = TransportError::kHeaderTooLarge;
      result.error_message =
          absl::StrCat("response head larger than max_header_bytes (", options.max_header_bytes,
                       " bytes)");
    } else if (code == CURLE_WRITE_ERROR && result.truncated == "length") {
      result.error = TransportError::kNone;  // our body cap, not a failure
    } else if (code == CURLE_PARTIAL_FILE) {
      result.error = TransportError::kNone;
      result.truncated = "disconnect";
    } else if (code == CURLE_OUT_OF_MEMORY && !HeadComplete(result.raw_headers)) {
      // libcurl refuses a header line over CURL_MAX_HTTP_HEADER (100 KiB) this way.
      result.error = TransportError::kHeaderTooLarge;
      result.error_message = "a response header line longer than libcurl's limit (100 KiB)";
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
      ClassifyTimeout(*t, detail, result);
    } else if (absl::StrContains(detail, "chunked-encoding")) {
      // libcurl parses the chunked framing even when it leaves it in the body.
      result.error = TransportError::kBadChunking;
      result.error_message = absl::StrCat("malformed chunked transfer coding after ",
                                          result.body.size(), " body bytes (", detail, ")");
    } else {
      result.error = Classify(code);
    }
    if (code != CURLE_OK && result.error != TransportError::kNone &&
        result.error_message.empty()) {
      result.error_message = detail.empty() ? curl_easy_strerror(code) : std::string(detail);
    }
    curl_off_t total_us = 0;
    curl_off_t ttfb_us = 0;
    curl_easy_getinfo(t->easy, CURLINFO_TOTAL_TIME_T, &total_us);
    curl_easy_getinfo(t->easy, CURLINFO_STARTTRANSFER_TIME_T, &ttfb_us);
    result.total_time = absl::Microseconds(total_us);
    result.time_to_first_byte = absl::Microseconds(ttfb_us);
    char* ip = nullptr;
    if (curl_easy_getinfo(t->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip != nullptr) {
      result.remote_ip = ip;
    }
    return result;
  }

  // Which phase a timed-out transfer was in: connecting, waiting for the response head, or
  // reading the body; and whether the time limit or the minimum speed cut it off.
  void ClassifyTimeout(Transfer& t, absl::string_view detail, HttpResult& result) const {
    curl_off_t pretransfer_us = 0;
    curl_easy_getinfo(t.easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
    const bool too_slow = absl::StrContains(detail, "too slow");
    const std::string limit =
        too_slow ? absl::StrCat("arriving slower than ", options.low_speed_bytes_per_second,
                                " bytes/s for ", absl::FormatDuration(options.low_speed_time))
                 : absl::StrCat("not complete within the time limit (",
                                absl::FormatDuration(options.total_timeout), ")");
    if (pretransfer_us == 0) {
      result.error = TransportError::kTimeout;
      result.error_message = absl::StrCat("no connection within ",
                                          absl::FormatDuration(options.connect_timeout));
    } else if (!HeadComplete(result.raw_headers)) {
      result.error = TransportError::kHeaderTimeout;
      result.error_message = absl::StrCat("response head ", limit);
    } else {
      result.error = TransportError::kBodyTimeout;
      result.error_message =
          absl::StrCat("body ", limit, ", ", result.body.size(), " bytes received");
    }
  }

  // Takes a paused transfer off the queue (it resumes, or it ended while paused: timed out).
  void Unqueue(Transfer& t) {
    memory->paused.erase(std::find(memory->paused.begin(), memory->paused.end(), &t));
    memory->paused_held -= t.charged;
    memory->paused_count.fetch_sub(1, std::memory_order_relaxed);
    t.paused = false;
  }

  // Resumes paused transfers, oldest first, while their next step fits the budget. When all
  // the memory held is held by paused transfers, nothing would ever release any: the oldest
  // then resumes with leave to overdraw (one at a time, as it is then the one that holds
  // unpaused memory), which bounds the peak at the budget plus one max_body_bytes.
  void ResumePaused() {
    for (size_t turns = memory->paused.size(); turns > 0 && !memory->paused.empty(); --turns) {
      Transfer* t = memory->paused.front();
      const size_t step = std::min(options.max_body_bytes,
                                   std::max(2 * t->charged, kMinBodyReserve)) - t->charged;
      const size_t held = memory->held.load(std::memory_order_relaxed);
      const bool fits = held + step <= memory->limit;
      const bool stalled = held == memory->paused_held;
      if (!fits && !stalled) return;
      Unqueue(*t);
      t->overdraft = !fits;
      // libcurl offers the kept data to OnBody at once, which may pause the transfer again.
      curl_easy_pause(t->easy, CURLPAUSE_CONT);
    }
  }

  void FireTimersIfDue() {
    const SteadyTime now = std::chrono::steady_clock::now();
    for (std::unique_ptr<Shard>& shard : shards) {
      if (!shard->timer.has_value() || *shard->timer > now) continue;
      shard->timer.reset();  // OnTimer sets it again if libcurl still wants one
      int still_running = 0;
      curl_multi_socket_action(shard->multi, CURL_SOCKET_TIMEOUT, 0, &still_running);
    }
  }

  // How long Poll may block: the caller's timeout, cut short by libcurl's earliest timer.
  std::chrono::nanoseconds WaitTime(std::chrono::nanoseconds cap) const {
    std::optional<SteadyTime> earliest;
    for (const std::unique_ptr<Shard>& shard : shards) {
      if (shard->timer.has_value() && (!earliest.has_value() || *shard->timer < *earliest)) {
        earliest = shard->timer;
      }
    }
    if (!earliest.has_value()) return cap;
    const auto left = *earliest - std::chrono::steady_clock::now();
    return std::clamp<std::chrono::nanoseconds>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(left), std::chrono::nanoseconds(0),
        cap);
  }

  // epoll_wait with a nanosecond timeout (epoll_pwait2, Linux 5.11). Millisecond timeouts would
  // either wake early and spin until a politeness deadline (truncated) or add up to a
  // millisecond to every per-host gap (rounded up); the latter is the fallback on older kernels.
  int Wait(std::chrono::nanoseconds wait) {
    const int max_events = static_cast<int>(events.size());
    if (pwait2_available) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(wait);
      const timespec ts{.tv_sec = static_cast<time_t>(seconds.count()),
                        .tv_nsec = static_cast<long>((wait - seconds).count())};
      const int n = ::epoll_pwait2(epoll_fd, events.data(), max_events, &ts, nullptr);
      if (n >= 0 || errno != ENOSYS) return n;
      pwait2_available = false;
    }
    const int64_t ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
    return ::epoll_wait(epoll_fd, events.data(), max_events, static_cast<int>(ms));
  }

  void Collect(std::vector<HttpResult>& done) {
    for (std::unique_ptr<Shard>& shard : shards) {
      int pending = 0;
      while (CURLMsg* msg = curl_multi_info_read(shard->multi, &pending)) {
        if (msg->msg != CURLMSG_DONE) continue;
        Transfer* t = nullptr;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
        const CURLcode code = msg->data.result;  // msg is invalid after remove_handle
        curl_multi_remove_handle(shard->multi, t->easy);
        t->in_multi = false;
        --running;
        done.push_back(Finish(t, code));
        if (!t->unpin.empty()) shard->unpin.push_back(std::move(t->unpin));
        t->unpin.clear();
        idle.push_back(t);
      }
    }
  }
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

absl::StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(const HttpClientOptions& options,
                                                               net::AddressPolicy guard) {
  GlobalInitOnce();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->guard = std::move(guard);
  if (options.body_memory_bytes < options.max_body_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("body_memory_bytes (", options.body_memory_bytes,
                     ") must be >= max_body_bytes (", options.max_body_bytes, ")"));
  }
  if (!options.connect_to.empty()) {
    const size_t colon = options.connect_to.rfind(':');
    uint32_t port = 0;
    const std::string port_text = options.connect_to.substr(colon + 1);
    if (colon == std::string::npos || colon == 0 || port_text.empty() ||
        port_text.find_first_not_of("0123456789") != std::string::npos || port_text.size() > 5 ||
        (port = static_cast<uint32_t>(std::stoul(port_text))) == 0 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("connect_to must be HOST:PORT, got \"", options.connect_to, "\""));
    }
    std::string host = options.connect_to.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(host); ip.ok()) {
      // ":::PORT": any host name, any port, connects to the same host name at PORT, which RESOLVE
      // then pins to the IP. Unlike naming the IP in CONNECT_TO, libcurl's connection cache stays
      // keyed by the URL's host, so finding a connection to reuse does not compare host names
      // with every cached connection.
      impl->connect_to = curl_slist_append(nullptr, absl::StrCat(":::", port).c_str());
      impl->connect_to_ip = ip->ToString();
      impl->connect_to_port = static_cast<uint16_t>(port);
    } else {
      // "::HOST:PORT": any host name, any port, connects to HOST:PORT (looked up by libcurl).
      impl->connect_to = curl_slist_append(nullptr, absl::StrCat("::", options.connect_to).c_str());
    }
  }
  impl->constant_headers = curl_slist_append(nullptr, kAccept);
  if (!options.accept_encoding.empty()) {
    impl->constant_headers = curl_slist_append(
        impl->constant_headers, absl::StrCat("Accept-Encoding: ", options.accept_encoding).c_str());
  }
  for (const std::string& header : options.extra_headers) {
    if (header.find_first_of("\r\n") != std::string::npos || header.find(':') == std::string::npos ||
        header.front() == ':') {
      return absl::InvalidArgumentError(
          absl::StrCat("request header \"", header, "\" is not one \"Name: value\" line"));
    }
    impl->constant_headers = curl_slist_append(impl->constant_headers, header.c_str());
  }
  impl->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->epoll_fd < 0 || impl->wake_fd < 0) {
    return absl::InternalError(absl::StrCat("epoll/eventfd: ", std::strerror(errno)));
  }
  impl->memory = std::make_shared<BodyMemory>(options.body_memory_bytes);
  impl->memory->wake_fd = impl->wake_fd;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = Impl::kWakeEvent;
  if (::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &ev) != 0) {
    return absl::InternalError(absl::StrCat("epoll_ctl: ", std::strerror(errno)));
  }
  const size_t cached =
      std::min(static_cast<size_t>(std::max(options.max_cached_connections, 1)),
               std::max<size_t>(service::OpenFileLimit() / 2, 1));
  impl->max_cached = cached;
  const int shard_count = std::clamp(options.connection_shards, 1, kMaxConnectionShards);
  for (int i = 0; i < shard_count; ++i) {
    auto shard = std::make_unique<Shard>();
    shard->index = static_cast<uint32_t>(i);
    shard->epoll_fd = impl->epoll_fd;
    shard->multi = curl_multi_init();
    if (shard->multi == nullptr) return absl::InternalError("curl_multi_init failed");
    CURLM* m = shard->multi;
    // Each shard may hold every cached connection: the client keeps the total under `cached`
    // (Configure's FORBID_REUSE), so no shard's cache fills and libcurl never evicts.
    curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, static_cast<long>(cached));
    curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &Impl::OnSocket);
    curl_multi_setopt(m, CURLMOPT_SOCKETDATA, shard.get());
    curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &Impl::OnTimer);
    curl_multi_setopt(m, CURLMOPT_TIMERDATA, shard.get());
    impl->shards.push_back(std::move(shard));
  }
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

void HttpClient::Start(HttpRequest request) {
  Transfer* t = impl_->TakeTransfer();
  impl_->Configure(*t, request);
  impl_->queued.push_back(t);
}

std::vector<HttpResult> HttpClient::Poll(absl::Duration timeout) {
  Impl& m = *impl_;
  for (Transfer* t : m.queued) {
    curl_multi_add_handle(t->shard->multi, t->easy);  // sets a 0 ms timer: starts below
    t->in_multi = true;
    ++m.running;
  }
  m.queued.clear();

  std::vector<HttpResult> done;
  m.FireTimersIfDue();
  m.Collect(done);
  m.ResumePaused();
  std::chrono::nanoseconds cap(0);  // results to return: do not block
  if (done.empty()) {
    cap = std::chrono::nanoseconds(
        absl::ToInt64Nanoseconds(std::clamp(timeout, absl::ZeroDuration(), absl::Minutes(1))));
  }
  const int n = m.Wait(m.WaitTime(cap));
  for (int i = 0; i < n; ++i) {
    const epoll_event& ev = m.events[static_cast<size_t>(i)];
    if (ev.data.u64 == Impl::kWakeEvent) {
      uint64_t count = 0;
      while (::read(m.wake_fd, &count, sizeof count) > 0) {
      }
      continue;
    }
    // An error or hang-up wakes both directions: libcurl's read or write then sees the cause.
    const bool error = (ev.events & (EPOLLERR | EPOLLHUP)) != 0;
    const int action = ((ev.events & EPOLLIN) != 0 || error ? CURL_CSELECT_IN : 0) |
                       ((ev.events & EPOLLOUT) != 0 || error ? CURL_CSELECT_OUT : 0);
    int still_running = 0;
    curl_multi_socket_action(m.shards[ev.data.u64 >> 32]->multi,
                             static_cast<curl_socket_t>(ev.data.u64 & 0xFFFFFFFFu), action,
                             &still_running);
  }
  m.FireTimersIfDue();
  m.Collect(done);
  return done;
}

size_t HttpClient::in_flight() const { return impl_->running + impl_->queued.size(); }

size_t HttpClient::body_memory_held() const {
  return impl_->memory->held.load(std::memory_order_relaxed);
}

size_t HttpClient::paused_for_memory() const {
  return impl_->memory->paused_count.load(std::memory_order_relaxed);
}

void HttpClient::Wakeup() {
  const uint64_t one = 1;
  // Fails only if the counter would overflow, when a wakeup is pending anyway.
  [[maybe_unused]] const ssize_t n = ::write(impl_->wake_fd, &one, sizeof one);
}

}  // namespace crawler::fetcher
