// SiteModel's responses (site_model.h): the status, headers and body for a request's target,
// with conditional GET on changing pages.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {
namespace {

constexpr absl::string_view kHttpDateFormat = "%a, %d %b %Y %H:%M:%S GMT";

// RFC 9110 §13.1.2: weak comparison, any listed tag or "*" matches.
bool EtagMatches(absl::string_view if_none_match, absl::string_view etag) {
  for (absl::string_view tag : absl::StrSplit(if_none_match, ',')) {
    tag = absl::StripAsciiWhitespace(tag);
    if (tag == "*") return true;
    absl::ConsumePrefix(&tag, "W/");
    if (tag == etag) return true;
  }
  return false;
}

// RFC 9110 §13.1.3: If-None-Match takes precedence; an invalid If-Modified-Since is ignored.
// Only IMF-fixdate is understood (the obsolete RFC 850 and asctime forms count as invalid).
bool NotModified(const RequestConditions& conditions, absl::string_view etag,
                 absl::Time last_modified) {
  if (!conditions.if_none_match.empty()) return EtagMatches(conditions.if_none_match, etag);
  if (conditions.if_modified_since.empty()) return false;
  absl::Time since;
  std::string error;
  if (!absl::ParseTime(kHttpDateFormat, conditions.if_modified_since, absl::UTCTimeZone(),
                       &since, &error)) {
    return false;
  }
  return last_modified <= since;
}

// "/sitemap-<N>.xml" of a host whose sitemap is an index.
std::optional<std::string> SitemapPartOf(const SiteModel& model, int host,
                                         absl::string_view target, absl::Duration elapsed) {
  if (!absl::ConsumePrefix(&target, "/sitemap-") || !absl::ConsumeSuffix(&target, ".xml")) {
    return std::nullopt;
  }
  int part = 0;
  if (target.empty() || target.size() > 6 || target.front() == '0' ||
      !absl::SimpleAtoi(target, &part)) {
    return std::nullopt;
  }
  return model.RenderSitemapPart(host, part, elapsed);
}

}  // namespace

SiteResponse SiteModel::Respond(absl::string_view host_name, absl::string_view target,
                                absl::Duration elapsed) const {
  return Respond(host_name, target, elapsed, RequestConditions{});
}

SiteResponse SiteModel::Respond(absl::string_view host_name, absl::string_view target,
                                absl::Duration elapsed,
                                const RequestConditions& conditions) const {
  SiteResponse response;
  std::optional<int> host = FindHost(host_name);
  if (!host) {
    response.status = 404;
    response.content_type = "text/plain; charset=utf-8";
    response.body = absl::StrCat("websim: unknown host ", host_name.substr(0, 256), "\n");
    return response;
  }
  response.latency = LatencyOf(*host);
  if (target == "/robots.txt") {
    response.content_type = "text/plain; charset=utf-8";
    response.body = RenderRobotsTxt(*host);
  } else if (target == "/sitemap.xml") {
    response.content_type = "application/xml";
    response.body = RenderSitemap(*host, elapsed);
  } else if (std::optional<std::string> part = SitemapPartOf(*this, *host, target, elapsed)) {
    response.content_type = "application/xml";
    response.body = *std::move(part);
  } else if (std::optional<SiteResponse> scripted = RespondScripted(*host, target)) {
    return *std::move(scripted);
  } else if (std::optional<PageRef> page = FindPage(*host, target)) {
    response.content_type = "text/html; charset=utf-8";
    if (changes_ == nullptr) {
      response.body = RenderPage(*page, elapsed);
      return response;
    }
    const ChangeProcess::Version version = VersionOf(*page, elapsed);
    const std::string etag = absl::StrCat("\"v", version.version, "\"");
    const absl::Time last_modified = WallTimeOf(version.changed_at_day);
    response.headers.emplace_back("ETag", etag);
    response.headers.emplace_back(
        "Last-Modified", absl::FormatTime(kHttpDateFormat, last_modified, absl::UTCTimeZone()));
    if (NotModified(conditions, etag, last_modified)) {
      response.status = 304;
      return response;
    }
    response.body = RenderVersion(*page, version.version, elapsed);
  } else {
    response.status = 404;
    response.content_type = "text/html; charset=utf-8";
    response.body = "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>"
                    "<body><h1>Not Found</h1></body></html>\n";
  }
  return response;
}

}  // namespace crawler::websim
