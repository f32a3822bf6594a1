#include "services/fetcher/crawl_report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/json/json_string.h"
#include "services/frontier/url_record.h"

namespace crawler::fetcher {
namespace {

// Error classes are a bounded set: "http_<status>", or the fetcher's class word in front of the
// detail ("timeout: ...", "dns: ..."). Anything else (free text, host names) is "network", so the
// set never grows with the hosts crawled.
std::string ErrorClass(const fetcher::FetchEvent& e) {
  if (e.http_status > 0) return absl::StrCat("http_", e.http_status);
  const size_t colon = e.detail.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 32) return "network";
  for (size_t i = 0; i < colon; ++i) {
    const char c = e.detail[i];
    if (!((c >= 'a' && c <= 'z') || c == '_')) return "network";
  }
  return e.detail.substr(0, colon);
}

std::string OutcomeColumn(const fetcher::FetchEvent& e) {
  if (e.robots_txt) return "robots";
  if (e.sitemap) return "sitemap";
  return std::string(frontier::OutcomeClassName(e.outcome));
}

void AppendLogLine(const fetcher::FetchEvent& e, std::string& out) {
  // Tabs and newlines inside fields would break the format; URLs are canonical (none), details
  // are ours or libcurl's.
  std::string detail = e.detail;
  for (char& c : detail) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  absl::StrAppend(
      &out, absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", e.time, absl::UTCTimeZone()), "\t", e.url,
      "\t", e.http_status, "\t", e.bytes, "\t", absl::ToInt64Milliseconds(e.duration), "\t",
      OutcomeColumn(e), "\t", detail, "\n");
}

}  // namespace


absl::StatusOr<std::unique_ptr<CrawlLog>> CrawlLog::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open crawl log ", path, ": ", std::strerror(errno)));
  }
  const off_t size = ::lseek(fd, 0, SEEK_END);
  char last = '\n';
  if (size > 0 && ::pread(fd, &last, 1, size - 1) == 1 && last != '\n') {
    if (::write(fd, "\n", 1) != 1) {
      ::close(fd);
      return absl::UnavailableError(absl::StrCat("cannot write crawl log ", path));
    }
  }
  return std::unique_ptr<CrawlLog>(new CrawlLog(fd));
}

CrawlLog::~CrawlLog() { ::close(fd_); }

void CrawlLog::OnFetch(const fetcher::FetchEvent& e) {
  const fetcher::FetchEvent* one[] = {&e};
  OnFetchBatch(one);
}

void CrawlLog::OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) {
  std::string lines;
  for (const fetcher::FetchEvent* e : events) AppendLogLine(*e, lines);
  // O_APPEND writes are not interleaved with other threads' writes. A failed write loses log
  // lines, never a page: the frontier and WARC files are the record of the crawl.
  size_t done = 0;
  while (done < lines.size()) {
    const ssize_t n = ::write(fd_, lines.data() + done, lines.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

void CrawlStats::OnFetch(const fetcher::FetchEvent& e) {
  absl::MutexLock lock(&mu_);
  CountLocked(e);
}

void CrawlStats::OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) {
  absl::MutexLock lock(&mu_);
  for (const fetcher::FetchEvent* e : events) CountLocked(*e);
}

void CrawlStats::CountLocked(const fetcher::FetchEvent& e) {
  CrawlTotals& t = totals_;
  const bool requested = e.http_status > 0 || e.outcome == frontier::OutcomeClass::kNetworkError;
  if (requested) {
    ++t.fetches;
    t.bytes += e.bytes;
  }
  if (e.robots_txt) {
    ++t.robots_txt;
    return;
  }
  if (e.sitemap) {
    // Read for its pages, not one of them: outside pages and outcomes.
    ++t.sitemaps;
    t.sitemap_urls += e.sitemap_urls;
    return;
  }
  ++t.outcomes[std::string(frontier::OutcomeClassName(e.outcome))];
  if (e.http_status > 0) ++t.pages;
  t.trap_links += e.trap_links;
  t.links_too_deep += e.links_too_deep;
  if (e.links_cut > 0) {
    t.links_cut += e.links_cut;
    ++t.pages_with_links_cut;
  }
  switch (e.outcome) {
    case frontier::OutcomeClass::kOutOfScope:
      // Refused at resolution ("address refused (...)") or at connect time
      // ("address_refused: ...").
      if (absl::StartsWith(e.detail, "address refused") ||
          absl::StartsWith(e.detail, "address_refused")) {
        if (t.address_refused++ == 0) t.first_address_refusal = e.detail;
      }
      break;
    case frontier::OutcomeClass::kRobotsDenied:
      ++t.robots_denied;
      break;
    case frontier::OutcomeClass::kDuplicate:
      ++t.duplicates;
      break;
    case frontier::OutcomeClass::kHttpError:
    case frontier::OutcomeClass::kNetworkError:
      ++t.errors;
      ++t.errors_by_class[ErrorClass(e)];
      break;
    default:
      break;
  }
}

CrawlTotals CrawlStats::Totals() const {
  absl::MutexLock lock(&mu_);
  return totals_;
}

std::string SummaryJson(const CrawlTotals& t, absl::Duration elapsed,
                        const std::string& extra_members) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  auto object = [](const std::map<std::string, uint64_t>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) {
      absl::StrAppend(&out, out.size() > 1 ? ", " : "", json::JsonString(k), ": ", v);
    }
    return out + "}";
  };
  std::string json = absl::StrCat(
      "{\n  \"pages\": ", t.pages, ",\n  \"fetches\": ", t.fetches, ",\n  \"bytes\": ", t.bytes,
      ",\n  \"errors\": ", t.errors, ",\n  \"errors_by_class\": ", object(t.errors_by_class),
      ",\n  \"duplicates\": ", t.duplicates, ",\n  \"robots_denied\": ", t.robots_denied,
      ",\n  \"robots_txt_fetches\": ", t.robots_txt, ",\n  \"sitemap_fetches\": ", t.sitemaps,
      ",\n  \"sitemap_urls\": ", t.sitemap_urls, ",\n  \"links_cut\": ", t.links_cut,
      ",\n  \"pages_with_links_cut\": ", t.pages_with_links_cut,
      ",\n  \"trap_links\": ", t.trap_links,
      ",\n  \"outcomes\": ", object(t.outcomes),
      ",\n  \"pages_per_second\": ",
      absl::StrFormat("%.1f", seconds > 0 ? static_cast<double>(t.pages) / seconds : 0.0),
      ",\n  \"elapsed_seconds\": ", absl::StrFormat("%.3f", seconds));
  if (!extra_members.empty()) absl::StrAppend(&json, ",\n  ", extra_members);
  return json + "\n}\n";
}

}  // namespace crawler::fetcher
