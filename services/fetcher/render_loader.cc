#include "services/fetcher/render_loader.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/http/chunked_decoder.h"
#include "lib/http/content_decoder.h"
#include "lib/http/response_head.h"
#include "lib/net/ip_address.h"
#include "lib/url/url.h"
#include "services/fetcher/response_archiver.h"

namespace crawler::fetcher {
namespace {

// A request the loader will not send (policy, the guard), and one that was sent or tried and
// failed.
browser::ResourceResponse Refusal(std::string why) {
  return {.error = std::move(why), .refused = true};
}
browser::ResourceResponse Failure(std::string why) { return {.error = std::move(why)}; }

// "[::1]" -> "::1": the URL's host form of an IPv6 literal.
std::string_view Unbracketed(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RenderLoader>> RenderLoader::Create(
    const RenderLoaderOptions& options, Resolver& resolver, const net::AddressPolicy& guard,
    warc::WarcWriter* warc, HttpTransport* transport) {
  if (options.max_in_flight == 0) return absl::InvalidArgumentError("max_in_flight must be > 0");
  std::string connect_to_ip;
  if (!options.http.connect_to.empty()) {
    connect_to_ip = options.http.connect_to.substr(0, options.http.connect_to.rfind(':'));
  }
  std::unique_ptr<HttpTransport> owned;
  if (transport == nullptr) {
    absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options.http, guard);
    if (!client.ok()) return client.status();
    owned = *std::move(client);
    transport = owned.get();
  }
  return std::unique_ptr<RenderLoader>(new RenderLoader(options, resolver, guard, warc,
                                                        std::move(owned), *transport,
                                                        std::move(connect_to_ip)));
}

RenderLoader::RenderLoader(const RenderLoaderOptions& options, Resolver& resolver,
                           const net::AddressPolicy& guard, warc::WarcWriter* warc,
                           std::unique_ptr<HttpTransport> owned, HttpTransport& transport,
                           std::string connect_to_ip)
    : options_(options), resolver_(resolver), guard_(guard), warc_(warc),
      owned_transport_(std::move(owned)), transport_(transport),
      connect_to_ip_(std::move(connect_to_ip)) {
  thread_ = std::thread(&RenderLoader::Run, this);
}

RenderLoader::~RenderLoader() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  transport_.Wakeup();
  thread_.join();
}

namespace {

bool Cacheable(const browser::ResourceRequest& request) {
  return request.method == "GET" &&
         (request.resource_type == "Script" || request.resource_type == "Stylesheet");
}

}  // namespace

std::optional<browser::ResourceResponse> RenderLoader::Cached(
    const browser::ResourceRequest& request) {
  if (options_.cache_bytes == 0 || !Cacheable(request)) return std::nullopt;
  absl::MutexLock lock(&mu_);
  auto it = cache_.find(request.url);
  if (it == cache_.end()) return std::nullopt;
  cache_order_.splice(cache_order_.end(), cache_order_, it->second.order);
  ++stats_.requests;
  ++stats_.cache_hits;
  stats_.bytes += it->second.response.body.size();
  return it->second.response;
}

void RenderLoader::Keep(const browser::ResourceRequest& request,
                        const browser::ResourceResponse& response) {
  if (options_.cache_bytes == 0 || !Cacheable(request) || response.status != 200 ||
      response.body.size() > options_.cache_bytes / 4) {
    return;
  }
  for (const auto& [name, value] : response.headers) {
    if (!absl::EqualsIgnoreCase(name, "Cache-Control")) continue;
    const std::string lower = absl::AsciiStrToLower(value);
    if (absl::StrContains(lower, "no-store") || absl::StrContains(lower, "no-cache") ||
        absl::StrContains(lower, "private")) {
      return;
    }
  }
  absl::MutexLock lock(&mu_);
  if (cache_.contains(request.url)) return;
  cache_order_.push_back(request.url);
  cache_.emplace(request.url, CacheEntry{.response = response, .order = std::prev(cache_order_.end())});
  cache_held_ += request.url.size() + response.body.size();
  while (cache_held_ > options_.cache_bytes && !cache_order_.empty()) {
    auto oldest = cache_.find(cache_order_.front());
    cache_held_ -= oldest->first.size() + oldest->second.response.body.size();
    cache_.erase(oldest);
    cache_order_.pop_front();
  }
}

void RenderLoader::Load(browser::ResourceRequest request,
                        absl::AnyInvocable<void(browser::ResourceResponse) &&> done) {
  if (std::optional<browser::ResourceResponse> cached = Cached(request)) {
    std::move(done)(*std::move(cached));
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    ++stats_.requests;
    if (stop_) {
      ++stats_.refused;
    } else {
      queued_.push_back(Job{.request = std::move(request), .done = std::move(done)});
      done = nullptr;
    }
  }
  if (done != nullptr) {
    std::move(done)(Refusal("the fetcher is stopping"));
    return;
  }
  transport_.Wakeup();
}

RenderLoaderStats RenderLoader::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::Status RenderLoader::archive_status() const {
  absl::MutexLock lock(&mu_);
  return archive_status_;
}

void RenderLoader::Answer(Job job, browser::ResourceResponse response) {
  {
    absl::MutexLock lock(&mu_);
    if (!response.error.empty()) {
      ++(response.refused ? stats_.refused : stats_.failed);
    } else {
      ++stats_.fetched;
      stats_.bytes += response.body.size();
    }
  }
  std::move(job.done)(std::move(response));
}

void RenderLoader::Begin(uint64_t id, Job& job) {
  const browser::ResourceRequest& r = job.request;
  if (r.method != "GET") {
    Answer(std::move(job), Refusal(absl::StrCat("method not sent: ", r.method)));
    return;
  }
  absl::StatusOr<url::Url> url = url::Url::Parse(r.url);
  if (!url.ok() || (url->scheme() != "http" && url->scheme() != "https")) {
    Answer(std::move(job), Refusal("not an http(s) URL"));
    return;
  }
  const std::string host(url->host());
  std::string ip;
  if (absl::StatusOr<net::IpAddress> literal = net::IpAddress::Parse(Unbracketed(host));
      literal.ok()) {
    // Judged as written, connect_to or not: a page must not name its way past the guard.
    absl::StatusOr<net::IpAddress> allowed = guard_.FirstAllowed({*literal});
    if (!allowed.ok()) {
      Answer(std::move(job), Refusal(std::string(allowed.status().message())));
      return;
    }
    ip = allowed->ToString();
  }
  if (!connect_to_ip_.empty()) {
    ip = connect_to_ip_;
  } else if (ip.empty()) {
    absl::StatusOr<std::vector<net::IpAddress>> addresses = resolver_.Resolve(host);
    if (!addresses.ok() || addresses->empty()) {
      Answer(std::move(job), Failure(absl::StrCat(
                                 "dns: ", addresses.ok() ? "no address"
                                                         : addresses.status().message())));
      return;
    }
    absl::StatusOr<net::IpAddress> allowed = guard_.FirstAllowed(*addresses);
    if (!allowed.ok()) {
      Answer(std::move(job), Refusal(std::string(allowed.status().message())));
      return;
    }
    ip = allowed->ToString();
  }
  std::vector<std::string> headers;
  if (!r.page_url.empty()) headers.push_back("Referer: " + r.page_url);
  transport_.Start(HttpRequest{.id = id,
                               .url = url->href(),
                               .host = host,
                               .port = url->effective_port(),
                               .ip = ip,
                               .extra_headers = std::move(headers)});
  in_flight_.emplace(id, std::move(job));
}

browser::ResourceResponse RenderLoader::Finish(const HttpResult& result, const std::string& url) {
  if (result.error != TransportError::kNone) {
    return Failure(absl::StrCat(std::string(TransportErrorName(result.error)), ": ",
                                result.error_message));
  }
  absl::StatusOr<http::ResponseHead> head = http::ResponseHead::Parse(result.raw_headers);
  if (!head.ok()) return Failure("protocol: bad response head");
  if (warc_ != nullptr) {
    const absl::Time now = absl::Now();
    const std::string id = warc_->NewRecordId();
    std::vector<warc::WarcRecord> records;
    records.push_back(ResponseRecord(result, url, now, id));
    SetMessageBlock(records.back(), head->raw(), result.body);
    AppendRequestRecord(result, url, now, id, records);
    if (absl::Status written = warc_->WriteAll(records); !written.ok()) {
      absl::MutexLock lock(&mu_);
      if (archive_status_.ok()) archive_status_ = written;
    }
  }
  std::string dechunked;
  const std::string_view payload = http::EntityBody(*head, result.body, dechunked);
  absl::StatusOr<std::string> decoded =
      http::DecodeContent(payload, head->content_encodings(), options_.max_decoded_bytes);
  if (!decoded.ok()) {
    return Failure(absl::StrCat("not decoded: ", decoded.status().message()));
  }
  browser::ResourceResponse response{.status = head->status(), .body = *std::move(decoded)};
  for (const auto& [name, value] : head->fields()) response.headers.emplace_back(name, value);
  return response;
}

void RenderLoader::Run() {
  while (true) {
    std::deque<Job> starting;
    {
      absl::MutexLock lock(&mu_);
      if (stop_) break;
      while (!queued_.empty() && in_flight_.size() + starting.size() < options_.max_in_flight) {
        starting.push_back(std::move(queued_.front()));
        queued_.pop_front();
      }
    }
    for (Job& job : starting) Begin(next_id_++, job);
    for (const HttpResult& result : transport_.Poll(absl::Milliseconds(100))) {
      auto it = in_flight_.find(result.id);
      if (it == in_flight_.end()) continue;
      Job job = std::move(it->second);
      in_flight_.erase(it);
      browser::ResourceResponse response = Finish(result, job.request.url);
      if (response.error.empty()) Keep(job.request, response);
      Answer(std::move(job), std::move(response));
    }
  }
  // Stopping: every request still held gets its answer, so no render waits for it.
  std::deque<Job> left;
  {
    absl::MutexLock lock(&mu_);
    left.swap(queued_);
  }
  for (auto& [id, job] : in_flight_) left.push_back(std::move(job));
  in_flight_.clear();
  for (Job& job : left) Answer(std::move(job), Refusal("the fetcher is stopping"));
}

}  // namespace crawler::fetcher
