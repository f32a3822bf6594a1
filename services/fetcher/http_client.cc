#include "services/fetcher/http_client.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/net/ip_address.h"

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

// One transfer in progress. Owned by Impl::transfers_ while running.
struct Transfer {
  CURL* easy = nullptr;
  const HttpClientOptions* options = nullptr;
  const net::AddressPolicy* guard = nullptr;
  HttpResult result;
  curl_slist* headers = nullptr;
  curl_slist* resolve = nullptr;
  bool header_too_large = false;
  bool address_refused = false;

  ~Transfer() {
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
  }
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

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const size_t room = t->options->max_body_bytes - t->result.body.size();
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
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
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

}  // namespace

struct HttpClient::Impl {
  HttpClientOptions options;
  net::AddressPolicy guard;
  CURLM* multi = nullptr;
  curl_slist* connect_to = nullptr;
  std::vector<CURL*> idle_handles;  // reset and reused: keeps libcurl's per-handle caches warm
  std::vector<std::unique_ptr<Transfer>> queued;
  absl::flat_hash_set<Transfer*> running;

  ~Impl() {
    for (Transfer* t : running) {
      curl_multi_remove_handle(multi, t->easy);
      curl_easy_cleanup(t->easy);
      delete t;
    }
    for (CURL* easy : idle_handles) curl_easy_cleanup(easy);
    if (multi != nullptr) curl_multi_cleanup(multi);
    curl_slist_free_all(connect_to);
  }

  CURL* TakeHandle() {
    if (idle_handles.empty()) return curl_easy_init();
    CURL* easy = idle_handles.back();
    idle_handles.pop_back();
    curl_easy_reset(easy);
    return easy;
  }

  void Configure(Transfer& t, const HttpRequest& request) {
    CURL* e = t.easy;
    curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
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
    if (options.capture_request) {
      curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, OnDebug);
      curl_easy_setopt(e, CURLOPT_DEBUGDATA, &t);
      curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
    }
    // Content codings are requested by hand so libcurl does not decode: the WARC keeps the bytes
    // as sent, lib/http decodes with a cap.
    t.headers = curl_slist_append(t.headers, kAccept);
    if (!options.accept_encoding.empty()) {
      t.headers = curl_slist_append(
          t.headers, absl::StrCat("Accept-Encoding: ", options.accept_encoding).c_str());
    }
    for (const std::string& h : request.extra_headers) {
      t.headers = curl_slist_append(t.headers, h.c_str());
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
    // Keep chunked framing in the body too (lib/http/chunked_decoder.h removes it): the WARC
    // record must match its own Transfer-Encoding header.
    curl_easy_setopt(e, CURLOPT_HTTP_TRANSFER_DECODING, 0L);
    if (connect_to != nullptr) {
      curl_easy_setopt(e, CURLOPT_CONNECT_TO, connect_to);
    } else if (!request.ip.empty()) {
      const bool v6 = request.ip.find(':') != std::string::npos;
      const std::string entry = absl::StrCat(request.host, ":", request.port, ":", v6 ? "[" : "",
                                             request.ip, v6 ? "]" : "");
      t.resolve = curl_slist_append(t.resolve, entry.c_str());
      curl_easy_setopt(e, CURLOPT_RESOLVE, t.resolve);
    }
  }

  HttpResult Finish(Transfer* t, CURLcode code) {
    HttpResult result = std::move(t->result);
    if (t->address_refused) {
      result.error = TransportError::kAddressRefused;
    } else if (t->header_too_large) {
      result.error = TransportError::kHeaderTooLarge;
    } else if (code == CURLE_WRITE_ERROR && result.truncated == "length") {
      result.error = TransportError::kNone;  // our body cap, not a failure
    } else if (code == CURLE_PARTIAL_FILE) {
      result.error = TransportError::kNone;
      result.truncated = "disconnect";
    } else {
      result.error = Classify(code);
    }
    if (code != CURLE_OK && result.error != TransportError::kNone) {
      result.error_message = curl_easy_strerror(code);
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
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

absl::StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(const HttpClientOptions& options,
                                                               net::AddressPolicy guard) {
  GlobalInitOnce();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->guard = std::move(guard);
  if (!options.connect_to.empty()) {
    const size_t colon = options.connect_to.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == options.connect_to.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("connect_to must be HOST:PORT, got \"", options.connect_to, "\""));
    }
    // "::HOST:PORT": any host name, any port, connects to HOST:PORT.
    impl->connect_to = curl_slist_append(nullptr, absl::StrCat("::", options.connect_to).c_str());
  }
  impl->multi = curl_multi_init();
  if (impl->multi == nullptr) return absl::InternalError("curl_multi_init failed");
  curl_multi_setopt(impl->multi, CURLMOPT_MAXCONNECTS,
                    static_cast<long>(options.max_cached_connections));
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

void HttpClient::Start(HttpRequest request) {
  auto t = std::make_unique<Transfer>();
  t->options = &impl_->options;
  t->guard = &impl_->guard;
  t->result.id = request.id;
  t->easy = impl_->TakeHandle();
  impl_->Configure(*t, request);
  impl_->queued.push_back(std::move(t));
}

std::vector<HttpResult> HttpClient::Poll(absl::Duration timeout) {
  Impl& m = *impl_;
  for (std::unique_ptr<Transfer>& t : m.queued) {
    curl_multi_add_handle(m.multi, t->easy);
    m.running.insert(t.release());
  }
  m.queued.clear();

  int still_running = 0;
  curl_multi_perform(m.multi, &still_running);
  std::vector<HttpResult> done;
  auto collect = [&] {
    int pending = 0;
    while (CURLMsg* msg = curl_multi_info_read(m.multi, &pending)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      const CURLcode code = msg->data.result;
      curl_multi_remove_handle(m.multi, t->easy);
      done.push_back(m.Finish(t, code));
      m.idle_handles.push_back(t->easy);
      m.running.erase(t);
      delete t;
    }
  };
  collect();
  if (done.empty()) {
    const int timeout_ms =
        static_cast<int>(std::clamp<int64_t>(absl::ToInt64Milliseconds(timeout), 0, 60'000));
    curl_multi_poll(m.multi, nullptr, 0, timeout_ms, nullptr);
    curl_multi_perform(m.multi, &still_running);
    collect();
  }
  return done;
}

size_t HttpClient::in_flight() const { return impl_->running.size() + impl_->queued.size(); }

void HttpClient::Wakeup() { curl_multi_wakeup(impl_->multi); }

}  // namespace crawler::fetcher
