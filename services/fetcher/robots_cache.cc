#include "services/fetcher/robots_cache.h"

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/http/chunked_decoder.h"
#include "lib/http/content_decoder.h"
#include "lib/http/response_head.h"
#include "lib/url/host_key.h"
#include "services/fetcher/response_archiver.h"

namespace crawler::fetcher {
namespace {

using frontier::OutcomeClass;

// robots.txt bodies parsed at most (RFC 9309 §2.5 requires at least 500 KiB).
constexpr size_t kMaxRobotsBytes = 512 * 1024;

// Cache-Control: max-age=N (RFC 9111 §5.2.2.1), for the robots.txt cache lifetime.
std::optional<absl::Duration> MaxAge(const http::ResponseHead& head) {
  const std::string cc = absl::AsciiStrToLower(head.GetCombined("Cache-Control"));
  const size_t pos = cc.find("max-age=");
  if (pos == std::string::npos) return std::nullopt;
  size_t end = pos + 8;
  while (end < cc.size() && absl::ascii_isdigit(cc[end])) ++end;
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(absl::string_view(cc).substr(pos + 8, end - pos - 8), &seconds)) {
    return std::nullopt;
  }
  return absl::Seconds(seconds);
}

}  // namespace

RobotsCache::RobotsCache(const RobotsCacheOptions& options, const scope::Scope& scope,
                         warc::WarcWriter* warc, const Clock& clock, FetchObserver* observer)
    : options_(options),
      policy_(options.policy),
      scope_(scope),
      warc_(warc),
      clock_(clock),
      observer_(observer) {}

const RobotsEntry* RobotsCache::Fresh(const std::string& host_key) const {
  auto it = entries_.find(host_key);
  if (it == entries_.end() || it->second.expires <= clock_.Now()) return nullptr;
  return &it->second;
}

std::optional<absl::Duration> RobotsCache::CrawlDelay(const std::string& host_key) const {
  auto it = entries_.find(host_key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.rules.CrawlDelay(options_.agent);
}

std::optional<RobotsDenial> RobotsCache::Check(const RobotsEntry& entry,
                                               const url::Url& url) const {
  const std::string path(url.path());
  const std::string target =
      url.has_query() ? absl::StrCat(path, "?", std::string(url.query())) : path;
  robots::MatchResult match = entry.rules.Match(options_.agent, target);
  if (match.allowed) return std::nullopt;
  if (entry.unavailable) {
    return RobotsDenial{.detail = absl::StrCat("robots.txt unavailable (", entry.why, ")"),
                        .retry = true,
                        .host_not_before = entry.expires};
  }
  return RobotsDenial{
      .detail = match.rule.has_value() ? "Disallow: " + match.rule->pattern : std::string()};
}

absl::Status RobotsCache::Archive(const std::string& url, const HttpResult& result,
                                  const std::string& raw_head) {
  // robots.txt is archived like a page (replay tools and audits want it): request and response
  // records, the request naming the response.
  const absl::Time date = clock_.Now();
  std::vector<warc::WarcRecord> records;
  records.reserve(2);
  records.push_back(ResponseRecord(result, url, date, warc_->NewRecordId()));
  SetMessageBlock(records.back(), raw_head, result.body);
  const std::string response_id = records.back().record_id;
  AppendRequestRecord(result, url, date, response_id, records);
  return warc_->WriteAll(std::move(records));
}

void RobotsCache::QueueSitemaps(const std::string& robots_url, robots::RobotsAction action,
                                const robots::RobotsRules& rules,
                                std::vector<frontier::UrlToAdd>& sitemaps) const {
  using collections::SitemapDiscovery;
  if (options_.sitemap_discovery == SitemapDiscovery::kOff) return;
  auto queue = [&](const url::Url& u) {
    absl::StatusOr<url::CanonicalUrl> c = url::Canonicalize(u, options_.canonical);
    if (!c.ok() || scope_.Check(u, c->str(), 1) != scope::Verdict::kInScope) return;
    sitemaps.push_back(frontier::UrlToAdd{.canonical_url = c->str(),
                                          .host_key = url::HostKey::Of(u).str(),
                                          .depth = 1,
                                          .discovered_from = robots_url,
                                          .sitemap_level = 1});
  };
  // Rules kept from before, or a disallow-all for an unreachable file, say nothing new about
  // the site's sitemaps.
  if (action != robots::RobotsAction::kParseBody && action != robots::RobotsAction::kAllowAll) {
    return;
  }
  const std::vector<std::string>& named = rules.Sitemaps();
  for (const std::string& sitemap : named) {
    absl::StatusOr<url::Url> u = url::Url::Parse(sitemap);
    if (u.ok()) queue(*u);
  }
  if (!named.empty() || options_.sitemap_discovery != SitemapDiscovery::kRobotsAndWellKnown) {
    return;
  }
  // sitemaps.org, "Informing search engine crawlers": the customary place of a site's sitemap,
  // next to the robots.txt that named none (on the host a redirect of it led to).
  absl::StatusOr<url::Url> base = url::Url::Parse(robots_url);
  if (!base.ok()) return;
  absl::StatusOr<url::Url> well_known = url::Url::Parse("/sitemap.xml", *base);
  if (well_known.ok()) queue(*well_known);
}

RobotsResponse RobotsCache::OnResponse(const std::string& host_key, const std::string& url,
                                       int redirects_followed, const HttpResult& result,
                                       std::vector<frontier::UrlToAdd>& sitemaps) {
  RobotsResponse response;
  robots::RobotsFetchOutcome outcome;
  outcome.redirects_followed = redirects_followed;
  std::optional<http::ResponseHead> head;
  if (result.error == TransportError::kNone) {
    absl::StatusOr<http::ResponseHead> parsed = http::ResponseHead::Parse(result.raw_headers);
    if (parsed.ok()) head = *std::move(parsed);
  }
  std::optional<std::string> location;
  if (head.has_value()) {
    outcome.http_status = head->status();
    outcome.max_age = MaxAge(*head);
    if (auto l = head->Get("Location"); l.has_value()) location = std::string(*l);
    outcome.has_location = location.has_value();
  }
  auto old = entries_.find(host_key);
  outcome.has_last_known_rules = old != entries_.end();
  const robots::RobotsDecision decision = policy_.Decide(outcome);

  std::optional<robots::RobotsRules> rules;
  switch (decision.action) {
    case robots::RobotsAction::kParseBody: {
      // The same entity body a page would have (chunked framing undone), then its content
      // codings, bounded.
      std::string dechunked;
      const std::string_view body = http::EntityBody(*head, result.body, dechunked);
      absl::StatusOr<std::string> decoded =
          http::DecodeContent(body, head->content_encodings(), kMaxRobotsBytes);
      // A robots.txt too large to decode is parsed up to the limit (RFC 9309 §2.5).
      rules = robots::RobotsRules::Parse(decoded.ok() ? std::string_view(*decoded)
                                                      : body.substr(0, kMaxRobotsBytes));
      break;
    }
    case robots::RobotsAction::kFollowRedirect: {
      absl::StatusOr<url::Url> base = url::Url::Parse(url);
      absl::StatusOr<url::Url> target =
          base.ok() ? url::Url::Parse(*location, *base) : base.status();
      // RFC 9309 §2.3.1.2: follow redirects, even across authorities (http -> https is common);
      // the rules found apply to this host. The hop is fetched like any request of this host,
      // when its politeness claim allows.
      if (target.ok()) {
        response.redirect_to = target->href();
        return response;
      }
      rules = robots::RobotsRules::AllowAll();  // an unusable Location: "unavailable"
      break;
    }
    case robots::RobotsAction::kAllowAll:
      rules = robots::RobotsRules::AllowAll();
      break;
    case robots::RobotsAction::kDisallowAll:
      rules = robots::RobotsRules::DisallowAll();
      break;
    case robots::RobotsAction::kKeepLastKnown:
      if (old != entries_.end()) rules = old->second.rules;
      if (!rules.has_value()) rules = robots::RobotsRules::DisallowAll();
      break;
  }
  if (entries_.size() >= options_.max_entries) {
    // Bounded: drop expired entries, or an arbitrary one if none expired.
    const absl::Time wall = clock_.Now();
    absl::erase_if(entries_, [&](const auto& e) { return e.second.expires <= wall; });
    if (entries_.size() >= options_.max_entries) entries_.erase(entries_.begin());
  }
  QueueSitemaps(url, decision.action, *rules, sitemaps);
  const bool unavailable = decision.action == robots::RobotsAction::kDisallowAll;
  // Without a response, the transport error says why (a refused connection, a timeout...).
  const std::string why = head.has_value() ? absl::StrCat("HTTP ", head->status())
                          : result.error == TransportError::kNone
                              ? std::string("malformed response head")
                              : std::string(TransportErrorName(result.error));
  entries_.insert_or_assign(host_key,
                            RobotsEntry{*std::move(rules), clock_.Now() + decision.cache_lifetime,
                                        unavailable, unavailable ? why : ""});
  if (warc_ != nullptr && head.has_value()) response.archive_status = Archive(url, result, head->raw());
  if (observer_ != nullptr) {
    std::string detail = std::string(robots::RobotsActionName(decision.action));
    if (!head.has_value()) {
      absl::StrAppend(&detail, " (", why, result.error_message.empty() ? "" : ": ",
                      result.error_message, ")");
    }
    if (!response.archive_status.ok()) {
      absl::StrAppend(&detail, "; not archived: ", response.archive_status.message());
    }
    observer_->OnFetch(FetchEvent{
        .time = clock_.Now(),
        .url = url,
        .http_status = head.has_value() ? head->status() : 0,
        .bytes = result.body.size(),
        .duration = result.total_time,
        .outcome = head.has_value() ? OutcomeClass::kFetched : OutcomeClass::kNetworkError,
        .detail = std::move(detail),
        .robots_txt = true});
  }
  return response;
}

}  // namespace crawler::fetcher
