#include "services/fetcher/page_processor.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/change_digest.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/sha1.h"
#include "lib/http/chunked_decoder.h"
#include "lib/http/content_decoder.h"
#include "lib/http/content_sniffer.h"
#include "lib/http/response_head.h"
#include "lib/sitemap/parse_sitemap.h"
#include "lib/url/host_key.h"
#include "services/fetcher/response_archiver.h"

namespace crawler::fetcher {
namespace {

using frontier::OutcomeClass;

bool IsSitemapType(std::string_view essence) { return essence == "application/sitemap+xml"; }

// Failures that may go away: the network or a slow server. A malformed head or TLS failure would
// come back; malformed chunking is retried as the connection failure it used to be taken for.
bool Retryable(TransportError error) {
  switch (error) {
    case TransportError::kTimeout:
    case TransportError::kHeaderTimeout:
    case TransportError::kBodyTimeout:
    case TransportError::kConnectFailed:
    case TransportError::kBadChunking:
    case TransportError::kOther:
      return true;
    default:
      return false;
  }
}

}  // namespace

// What Classify learns about one page; consumed by the later steps.
struct PageProcessor::Parsed {
  std::optional<http::ResponseHead> head;
  // Entity body: transfer coding removed, content coding kept. Views the raw body (kept intact
  // for the WARC record) or `dechunked`.
  std::string_view payload;
  std::string dechunked;
  std::string essence;  // sniffed media type
  bool parsed_html = false;
  html::ExtractedPage html;
  bool read_sitemap = false;
  sitemap::SitemapKind sitemap_kind = sitemap::SitemapKind::kUnknown;
  std::vector<sitemap::SitemapEntry> sitemap_entries;
  std::optional<fingerprint::ContentKey> content_key;  // set for 2xx: the dedup key
  std::optional<fingerprint::Sha1Digest> sha1;         // only with WARC output (payload digest)
  std::optional<fingerprint::SimHash64> simhash;
  std::optional<dedup::ContentVerdict> verdict;
  std::string record_id;  // of this capture's response record
  std::optional<url::Url> redirect_target;
  std::string rendered_dom;  // the DOM rendering read, archived next to the response
  std::string rendered_outcome;
};

namespace {

// A page's visible text only feeds its SimHash and change digest: without fingerprints it is
// not built. Unresolved
// references are copied only for a link sink.
PageProcessorOptions WithDerivedExtractOptions(PageProcessorOptions options) {
  if (!options.fingerprints) options.extract.collect_text = false;
  options.extract.max_unresolved_kept =
      options.link_sink != nullptr ? options.max_unresolved_per_page : 0;
  return options;
}

// Adds a note to an event's detail, after what it says already.
void AppendDetail(FetchEvent& event, absl::string_view note) {
  absl::StrAppend(&event.detail, event.detail.empty() ? "" : "; ", note);
}

}  // namespace

PageProcessor::PageProcessor(const PageProcessorOptions& options, const scope::Scope& scope,
                             dedup::DedupClient* dedup, warc::WarcWriter* warc,
                             FetchObserver* observer, FetcherCounters* counters)
    : options_(WithDerivedExtractOptions(options)),
      scope_(scope),
      dedup_(dedup),
      warc_(warc),
      observer_(observer),
      counters_(counters),
      render_decider_(options.render == RenderMode::kAuto
                          ? std::make_unique<RenderDecider>(options.render_decider)
                          : nullptr) {}

void PageProcessor::Classify(const FetchedPage& page, Parsed& parsed, ProcessedPage& out) const {
  frontier::FetchOutcome& o = out.outcome;
  FetchEvent& e = out.event;
  o.lease_id = page.task.lease_id;
  o.fetch_time = page.fetch_time;
  e.time = page.fetch_time;
  e.url = page.task.canonical_url;
  e.duration = page.http.total_time;
  e.bytes = page.http.body.size();

  if (page.http.error != TransportError::kNone) {
    o.outcome = page.http.error == TransportError::kAddressRefused ? OutcomeClass::kOutOfScope
                                                                   : OutcomeClass::kNetworkError;
    o.retry = Retryable(page.http.error);
    e.detail = absl::StrCat(std::string(TransportErrorName(page.http.error)), ": ",
                            page.http.error_message);
    return;
  }
  absl::StatusOr<http::ResponseHead> head = http::ResponseHead::Parse(page.http.raw_headers);
  if (!head.ok()) {
    o.outcome = OutcomeClass::kNetworkError;
    o.retry = true;
    e.detail = absl::StrCat("protocol: ", head.status().message());
    return;
  }
  parsed.head = *std::move(head);
  const int status = parsed.head->status();
  o.http_status = status;
  e.http_status = status;
  if (auto v = parsed.head->Get("ETag")) o.etag = std::string(*v);
  if (auto v = parsed.head->Get("Last-Modified")) o.last_modified = std::string(*v);

  // Entity body: undo chunked framing, keep content codings (that is what payload digests cover).
  parsed.payload = http::EntityBody(*parsed.head, page.http.body, parsed.dechunked);
  o.content_length = parsed.payload.size();

  if (status == 304) {
    o.outcome = OutcomeClass::kNotModified;
    return;
  }
  if (status >= 300 && status < 400) {
    o.outcome = OutcomeClass::kRedirect;
    if (auto location = parsed.head->Get("Location"); location.has_value()) {
      absl::StatusOr<url::Url> target = url::Url::Parse(*location, page.url);
      if (target.ok()) {
        parsed.redirect_target = *std::move(target);
        e.detail = std::string(parsed.redirect_target->href());
      } else {
        e.detail = absl::StrCat("bad Location: ", target.status().message());
      }
    }
    return;
  }
  if (status < 200 || status >= 300) {
    o.outcome = OutcomeClass::kHttpError;
    // 429 and 5xx are the server's trouble, not the URL's: try again later (the frontier
    // bounds attempts).
    o.retry = status == 429 || status >= 500;
    return;
  }

  o.outcome = OutcomeClass::kFetched;
  const bool asked_as_sitemap = page.task.sitemap_level > 0;
  // An empty body is not "content": every empty page would be a duplicate of the first one.
  // A sitemap is not content either: two hosts' identical sitemaps must both be read.
  if (options_.fingerprints && !parsed.payload.empty() && !asked_as_sitemap) {
    parsed.content_key = fingerprint::ComputeContentKey(parsed.payload);
  }
  // SHA-1 only feeds WARC-Payload-Digest; without WARC output it would be wasted work.
  if (warc_ != nullptr) parsed.sha1 = fingerprint::Sha1(parsed.payload);
  absl::StatusOr<std::string> decoded = http::DecodeContent(
      parsed.payload, parsed.head->content_encodings(), options_.max_decoded_bytes);
  if (!decoded.ok()) {
    e.detail = absl::StrCat("not parsed: ", decoded.status().message());
    parsed.essence = parsed.head->content_type().essence;
    e.content_type = parsed.essence;
    return;
  }
  parsed.essence = http::SniffContentType(parsed.head->content_type().essence, *decoded);
  e.content_type = parsed.essence;
  const std::string content_type_header(parsed.head->Get("Content-Type").value_or(""));

  if (asked_as_sitemap) {
    // Queued as a sitemap (robots.txt, /sitemap.xml, a seed, an index): read whatever its
    // type says, since servers label sitemaps text/xml, application/octet-stream, gzip...
    ReadSitemap(*decoded, parsed, e);
  } else if (http::IsHtml(parsed.essence)) {
    ExtractHtml(page, *decoded, content_type_header, parsed, out);
  } else if (IsSitemapType(parsed.essence) ||
             (parsed.essence == "text/plain" &&
              page.url.path().find("sitemap") != std::string_view::npos)) {
    // A sitemap found as a link: read it too. Plain text only at a sitemap-looking path, or
    // every text file would be taken for a list of URLs.
    ReadSitemap(*decoded, parsed, e);
  }
}

void PageProcessor::ReadSitemap(std::string_view body, Parsed& parsed, FetchEvent& event) const {
  sitemap::SitemapResult result = sitemap::ParseSitemap(body, options_.sitemap);
  parsed.read_sitemap = true;
  parsed.sitemap_kind = result.kind;
  parsed.sitemap_entries = std::move(result.entries);
  if (!result.status.ok()) event.detail = absl::StrCat("sitemap: ", result.status.message());
}

void PageProcessor::ExtractHtml(const FetchedPage& page, std::string_view decoded,
                                std::string_view content_type_header, Parsed& parsed,
                                ProcessedPage& out) const {
  frontier::FetchOutcome& o = out.outcome;
  FetchEvent& e = out.event;
  absl::StatusOr<html::ExtractedPage> extracted =
      html::ExtractPage(decoded, page.url, content_type_header, options_.extract);
  if (extracted.ok()) {
    parsed.html = *std::move(extracted);
    parsed.parsed_html = true;
    if (const uint64_t cut = parsed.html.skipped.over_limit; cut > 0) {
      // Cut silently, a page's links past the cap would look like a smaller site.
      e.links_cut = cut;
      AppendDetail(e, absl::StrCat("links cut: ", cut, " of ", parsed.html.links.size() + cut));
      if (counters_ != nullptr) {
        counters_->Add(&FetcherStats::links_cut, cut);
        counters_->Add(&FetcherStats::pages_with_links_cut);
      }
    }
    if (options_.fingerprints &&
        parsed.html.text.size() >= options_.min_text_bytes_for_simhash) {
      parsed.simhash = fingerprint::ComputeSimHash(parsed.html.text, options_.simhash);
      o.content_fingerprint = parsed.simhash->bits();
    }
    // No minimum length: the digest is exact, a short page's edit is as real as a long one's.
    if (options_.fingerprints) {
      if (const std::optional<fingerprint::ChangeDigest> digest =
              fingerprint::ComputeChangeDigest(parsed.html.main_text)) {
        o.change_digest = digest->bits();
      }
    }
    if (options_.renderer != nullptr && options_.render != RenderMode::kNever) {
      RenderHtml(page, decoded, parsed, out);
    }
  } else {
    e.detail = absl::StrCat("not parsed: ", extracted.status().message());
  }
}

void PageProcessor::RenderHtml(const FetchedPage& page, std::string_view decoded, Parsed& parsed,
                               ProcessedPage& out) const {
  const std::string host(page.url.host());
  if (render_decider_ != nullptr && !render_decider_->ShouldRender(host, CountScripts(decoded))) {
    return;
  }
  browser::RenderResult r = options_.renderer->Render(page.task.canonical_url, *parsed.head, decoded);
  parsed.rendered_outcome = std::string(browser::RenderOutcomeName(r.outcome));
  absl::flat_hash_set<std::string> known;
  for (const html::Link& link : parsed.html.links) known.insert(link.url.href());
  size_t gained = 0;
  if (!r.dom.empty()) {
    absl::StatusOr<url::Url> base = url::Url::Parse(r.base_url);
    absl::StatusOr<html::ExtractedPage> rendered = html::ExtractPage(
        r.dom, base.ok() ? *base : page.url, "text/html; charset=utf-8", options_.extract);
    if (rendered.ok()) {
      for (html::Link& link : rendered->links) {
        if (known.insert(link.url.href()).second) {
          parsed.html.links.push_back(std::move(link));
          ++gained;
        }
      }
    }
    parsed.rendered_dom = std::move(r.dom);
  }
  // Where the page tried to go (location changes, window.open): links, as a click handler's are.
  for (const std::string& target : r.navigations) {
    absl::StatusOr<url::Url> url = url::Url::Parse(target, page.url);
    if (!url.ok() || (url->scheme() != "http" && url->scheme() != "https")) continue;
    if (known.insert(url->href()).second) {
      parsed.html.links.push_back(html::Link{.url = *std::move(url), .kind = html::LinkKind::kScript});
      ++gained;
    }
  }
  if (render_decider_ != nullptr) render_decider_->Learn(host, gained);
  AppendDetail(out.event, absl::StrCat("rendered: ", parsed.rendered_outcome, ", +", gained,
                                       " links", r.error.empty() ? "" : " (", r.error,
                                       r.error.empty() ? "" : ")"));
  if (counters_ != nullptr) {
    counters_->Add(&FetcherStats::pages_rendered);
    counters_->Add(&FetcherStats::rendered_links, gained);
    if (r.outcome != browser::RenderOutcome::kRendered) counters_->Add(&FetcherStats::renders_cut);
  }
}

void PageProcessor::AddOutlink(const FetchedPage& page, const url::Url& target,
                               ProcessedPage& out, const SitemapLink* sitemap) const {
  absl::StatusOr<url::CanonicalUrl> canonical = url::Canonicalize(target, options_.canonical);
  if (!canonical.ok()) return;
  const uint32_t depth = sitemap != nullptr ? sitemap->depth : page.task.depth + 1;
  const scope::Verdict verdict = scope_.Check(target, canonical->str(), depth);
  if (verdict != scope::Verdict::kInScope) {
    if (scope::IsTrap(verdict)) {
      ++out.event.trap_links;
      out.trap_kind = verdict;
    } else if (verdict == scope::Verdict::kTooDeep) {
      ++out.event.links_too_deep;
    }
    return;
  }
  out.outlinks.push_back(frontier::UrlToAdd{
      .canonical_url = canonical->str(),
      .host_key = url::HostKey::Of(target).str(),
      .depth = depth,
      .discovered_from = page.task.canonical_url,
      .sitemap_level = sitemap != nullptr ? sitemap->level : uint8_t{0},
      .sitemap = sitemap != nullptr ? sitemap->hints : frontier::SitemapHints{}});
}

namespace {

frontier::SitemapHints HintsOf(const sitemap::SitemapEntry& entry) {
  frontier::SitemapHints hints;
  if (entry.lastmod.has_value()) hints.lastmod = *entry.lastmod;
  if (entry.changefreq.has_value()) {
    hints.changefreq = static_cast<uint8_t>(1 + static_cast<int>(*entry.changefreq));
  }
  if (entry.priority.has_value()) {
    hints.priority_permille = static_cast<int16_t>(std::lround(*entry.priority * 1000));
  }
  return hints;
}

}  // namespace

void PageProcessor::CollectSitemapLinks(const FetchedPage& page, const Parsed& parsed,
                                        ProcessedPage& out) const {
  // A sitemap found as a link (not queued as one) reads as a sitemap of the first level.
  const uint8_t level = std::max<uint8_t>(page.task.sitemap_level, 1);
  uint32_t urls = 0;
  uint32_t children = 0;
  uint32_t children_cut = 0;
  for (const sitemap::SitemapEntry& entry : parsed.sitemap_entries) {
    // Locs are absolute (sitemaps.org, "XML tag definitions"); a relative one is skipped.
    absl::StatusOr<url::Url> target = url::Url::Parse(entry.loc);
    if (!target.ok()) continue;
    if (entry.is_sitemap) {
      // The index's children are sitemaps of the next level at the index's own depth: an
      // index is a table of contents, not a hop towards the pages.
      if (level >= frontier::kMaxSitemapLevel || children >= options_.max_sitemaps_per_index) {
        ++children_cut;
        continue;
      }
      ++children;
      const SitemapLink child{.depth = page.task.depth, .level = static_cast<uint8_t>(level + 1)};
      AddOutlink(page, *target, out, &child);
    } else {
      ++urls;
      const SitemapLink link{.depth = page.task.depth + 1, .level = 0, .hints = HintsOf(entry)};
      AddOutlink(page, *target, out, &link);
    }
  }
  FetchEvent& e = out.event;
  if (page.task.sitemap_level == 0) return;
  e.sitemap = true;
  e.sitemap_urls = urls;
  // What the sitemap held, first in its line (an error of its own follows).
  std::string held = parsed.read_sitemap
                         ? absl::StrCat(std::string(sitemap::SitemapKindName(parsed.sitemap_kind)),
                                        ": ", urls, " urls, ", children, " sitemaps")
                         : std::string(frontier::OutcomeClassName(out.outcome.outcome));
  if (children_cut > 0) {
    absl::StrAppend(&held, " (", children_cut, " not followed: more than ",
                    options_.max_sitemaps_per_index, " per index or nested over ",
                    static_cast<int>(frontier::kMaxSitemapLevel), " levels)");
  }
  e.detail = e.detail.empty() ? held : absl::StrCat(held, "; ", e.detail);
}

bool PageProcessor::NextRedirectHop(const std::string& url, const std::string& target) {
  absl::MutexLock lock(&redirect_mu_);
  auto it = redirect_hops_.find(url);
  const int hops = (it == redirect_hops_.end() ? 0 : it->second) + 1;
  if (hops > options_.max_redirect_hops) return false;
  if (redirect_hops_.insert_or_assign(target, hops).second) redirect_order_.push_back(target);
  while (redirect_hops_.size() > options_.max_tracked_redirects && !redirect_order_.empty()) {
    redirect_hops_.erase(redirect_order_.front());
    redirect_order_.pop_front();
  }
  return true;
}

void PageProcessor::CollectLinks(const FetchedPage& page, const Parsed& parsed,
                                 ProcessedPage& out) {
  if (parsed.redirect_target.has_value()) {
    absl::StatusOr<url::CanonicalUrl> target =
        url::Canonicalize(*parsed.redirect_target, options_.canonical);
    if (target.ok() && NextRedirectHop(page.task.canonical_url, target->str())) {
      // A sitemap that moved is still a sitemap (a hop like any redirect).
      const SitemapLink moved{.depth = page.task.depth + 1, .level = page.task.sitemap_level};
      AddOutlink(page, *parsed.redirect_target, out,
                 page.task.sitemap_level > 0 ? &moved : nullptr);
    } else if (target.ok()) {
      absl::StrAppend(&out.event.detail, " (not followed: more than ", options_.max_redirect_hops,
                      " redirects)");
    }
  }
  // Duplicates' links were followed from the first copy (docs/architecture.md §3 dedup).
  if (out.outcome.outcome == OutcomeClass::kDuplicate) return;
  if (parsed.parsed_html && options_.link_sink != nullptr) {
    out.outcome.new_external_links = options_.link_sink->RecordPage(
        PageLinks{.canonical_url = page.task.canonical_url,
                  .url = page.url,
                  .depth = page.task.depth,
                  .links = parsed.html.links,
                  .unresolved = parsed.html.unresolved});
  }
  if (parsed.parsed_html) {
    for (const html::Link& link : parsed.html.links) {
      if (link.nofollow) continue;
      // Everything else is a navigation or a document of its own, script links (click handlers,
      // javascript: hrefs) included: followed as <a> links are, with the same scope and
      // nofollow rules.
      if (link.kind == html::LinkKind::kImg && !options_.follow_embeds) continue;
      AddOutlink(page, link.url, out);
    }
  }
  CollectSitemapLinks(page, parsed, out);
  // A page links to one target many times (menus): the frontier would drop the repeats, but
  // not sending them saves the batch space.
  absl::flat_hash_set<std::string> seen;
  std::vector<frontier::UrlToAdd> unique;
  unique.reserve(out.outlinks.size());
  for (frontier::UrlToAdd& u : out.outlinks) {
    if (seen.insert(u.canonical_url).second) unique.push_back(std::move(u));
  }
  out.outlinks = std::move(unique);
  out.event.outlinks = static_cast<uint32_t>(out.outlinks.size());
  if (const uint64_t traps = out.event.trap_links; traps > 0) {
    // A trap stopped is said, so that a site that looks smaller than it is can be explained.
    AppendDetail(out.event, absl::StrCat("trap links dropped: ", traps, " (last: ",
                                         std::string(scope::VerdictName(out.trap_kind)), ")"));
    if (counters_ != nullptr) counters_->Add(&FetcherStats::trap_links, traps);
  }
}

bool PageProcessor::Stored(const Parsed& parsed) const {
  if (warc_ == nullptr || !parsed.head.has_value()) return false;
  return options_.store_content_types.empty() || parsed.essence.empty() ||
         std::find(options_.store_content_types.begin(), options_.store_content_types.end(),
                   parsed.essence) != options_.store_content_types.end();
}

void PageProcessor::AddWarcRecords(const FetchedPage& page, const Parsed& parsed,
                                   const ProcessedPage& out,
                                   std::vector<warc::WarcRecord>& records) const {
  if (!Stored(parsed)) return;
  const std::string& uri = page.task.canonical_url;
  const std::string response_id =
      parsed.record_id.empty() ? warc_->NewRecordId() : parsed.record_id;

  warc::WarcRecord response = ResponseRecord(page.http, uri, page.fetch_time, response_id);
  if (parsed.sha1.has_value()) response.payload_digest = parsed.sha1->ToWarcString();

  // A revisit needs an original in the archive; content first seen while not archived (WARC
  // off, a filtered type) is archived in full now.
  const bool exact_duplicate = parsed.verdict.has_value() &&
                               parsed.verdict->verdict == dedup::Verdict::kExactDuplicate &&
                               parsed.verdict->original.has_value() &&
                               !parsed.verdict->original->warc_record_id.empty();
  if (out.outcome.outcome == OutcomeClass::kNotModified || exact_duplicate) {
    // Revisit: the header block only; the payload is elsewhere (WARC 1.1 §6.7).
    response.type = warc::RecordType::kRevisit;
    response.block = parsed.head->raw();
    if (exact_duplicate) {
      const dedup::Original& original = *parsed.verdict->original;
      response.profile = std::string(warc::kProfileIdenticalPayloadDigest);
      response.refers_to = original.warc_record_id;
      response.refers_to_target_uri = original.url;
      response.refers_to_date = warc::FormatWarcDate(original.fetch_time);
    } else {
      response.profile = std::string(warc::kProfileServerNotModified);
      response.payload_digest.clear();
    }
  } else {
    SetMessageBlock(response, parsed.head->raw(), page.http.body);
  }
  records.push_back(std::move(response));
  AppendRequestRecord(page.http, uri, page.fetch_time, response_id, records);

  // The rendered DOM: a resource record of its own URI ("urn:rendered:" and the page's), so that
  // replay finds the response at the page's URI and the DOM beside it, naming the response it
  // was rendered from.
  if (!parsed.rendered_dom.empty()) {
    warc::WarcRecord dom;
    dom.type = warc::RecordType::kResource;
    dom.date = page.fetch_time;
    dom.target_uri = "urn:rendered:" + uri;
    dom.content_type = "text/html; charset=utf-8";
    dom.refers_to = response_id;
    dom.refers_to_target_uri = uri;
    dom.extra_fields.emplace_back("WARC-Render-Outcome", parsed.rendered_outcome);
    dom.block = parsed.rendered_dom;
    records.push_back(std::move(dom));
  }

  // The metadata record: the page's link distance from a seed ("depth: 0" marks a seed, as a
  // WACZ page list shows it) and its outlinks; for pages with outlinks.
  if (!out.outlinks.empty()) {
    warc::WarcRecord metadata;
    metadata.type = warc::RecordType::kMetadata;
    metadata.date = page.fetch_time;
    metadata.target_uri = uri;
    metadata.concurrent_to = response_id;
    metadata.content_type = "application/warc-fields";
    constexpr std::string_view kField = "outlink: ";
    constexpr std::string_view kEnd = "\r\n";
    const std::string depth = absl::StrCat("depth: ", page.task.depth, "\r\n");
    size_t size = depth.size();
    for (const frontier::UrlToAdd& link : out.outlinks) {
      size += kField.size() + link.canonical_url.size() + kEnd.size();
    }
    metadata.block.reserve(size);
    metadata.block.append(depth);
    for (const frontier::UrlToAdd& link : out.outlinks) {
      metadata.block.append(kField).append(link.canonical_url).append(kEnd);
    }
    records.push_back(std::move(metadata));
  }
}

std::vector<ProcessedPage> PageProcessor::Process(std::vector<FetchedPage> pages) {
  std::vector<ProcessedPage> out(pages.size());
  std::vector<Parsed> parsed(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) Classify(pages[i], parsed[i], out[i]);

  // One dedup call for the batch. queries[j] is about pages[index[j]].
  std::vector<dedup::ContentQuery> queries;
  std::vector<size_t> index;
  bool dedup_unavailable = false;
  if (dedup_ != nullptr) {
    for (size_t i = 0; i < pages.size(); ++i) {
      if (!parsed[i].content_key.has_value()) continue;
      // Only a capture that will be archived can be the original later revisits refer to.
      if (Stored(parsed[i])) parsed[i].record_id = warc_->NewRecordId();
      queries.push_back(dedup::ContentQuery{.url = pages[i].task.canonical_url,
                                            .content_key = *parsed[i].content_key,
                                            .simhash = parsed[i].simhash,
                                            .fetch_time = pages[i].fetch_time,
                                            .warc_record_id = parsed[i].record_id,
                                            .payload_digest = parsed[i].sha1.has_value()
                                                                  ? parsed[i].sha1->ToWarcString()
                                                                  : std::string()});
      index.push_back(i);
    }
    if (!queries.empty()) {
      absl::StatusOr<std::vector<dedup::ContentVerdict>> verdicts = dedup_->Check(queries);
      if (verdicts.ok() && verdicts->size() != queries.size()) {
        verdicts = absl::InternalError(absl::StrCat(verdicts->size(), " verdicts for ",
                                                    queries.size(), " queries"));
      }
      if (verdicts.ok()) {
        for (size_t j = 0; j < index.size(); ++j) {
          Parsed& p = parsed[index[j]];
          p.verdict = (*verdicts)[j];
          ProcessedPage& o = out[index[j]];
          const bool other_page = p.verdict->original.has_value() &&
                                  p.verdict->original->url != pages[index[j]].task.canonical_url;
          if (p.verdict->verdict != dedup::Verdict::kUnique && other_page) {
            o.outcome.outcome = OutcomeClass::kDuplicate;
            o.event.outcome = OutcomeClass::kDuplicate;
            o.event.detail = absl::StrCat(
                p.verdict->verdict == dedup::Verdict::kExactDuplicate ? "exact" : "near",
                " duplicate of ", p.verdict->original->url);
          }
        }
      }
      if (!verdicts.ok()) {
        // A dedup outage must not lose pages nor hold them up: they are archived in full, as
        // new content (the header comment says why their content is not recorded).
        dedup_unavailable = true;
        for (size_t i : index) {
          AppendDetail(out[i].event,
                       absl::StrCat("dedup unavailable: ", verdicts.status().message()));
        }
        if (counters_ != nullptr) counters_->Add(&FetcherStats::dedup_unavailable, index.size());
      }
    }
  }

  // The WARC records of the whole batch go out in one write (WarcWriter::WriteAll).
  std::vector<warc::WarcRecord> records;
  records.reserve(3 * pages.size());
  std::vector<size_t> archived;  // pages with records in `records`
  for (size_t i = 0; i < pages.size(); ++i) {
    out[i].event.outcome = out[i].outcome.outcome;
    CollectLinks(pages[i], parsed[i], out[i]);
    const size_t before = records.size();
    AddWarcRecords(pages[i], parsed[i], out[i], records);
    if (records.size() > before) archived.push_back(i);
  }
  absl::Status archived_status = absl::OkStatus();
  if (!records.empty()) archived_status = warc_->WriteAll(std::move(records));
  if (!archived_status.ok()) {
    for (size_t i : archived) {
      AppendDetail(out[i].event, absl::StrCat("not archived: ", archived_status.message()));
      out[i].archive_status = archived_status;
    }
  } else if (dedup_ != nullptr && !dedup_unavailable) {
    // New content becomes an original only now that its records are in the archive: a later
    // copy (or the page itself, fetched again after a crash or a failed write) must never be a
    // revisit of a record that is nowhere.
    std::vector<dedup::ContentQuery> unique;
    std::vector<size_t> unique_pages;
    for (size_t j = 0; j < index.size(); ++j) {
      const Parsed& p = parsed[index[j]];
      if (p.verdict.has_value() && p.verdict->verdict != dedup::Verdict::kUnique) continue;
      unique.push_back(std::move(queries[j]));
      unique_pages.push_back(index[j]);
    }
    if (!unique.empty()) {
      if (absl::Status s = dedup_->Record(unique).status(); !s.ok()) {
        // Not a loss: later copies of this content are archived in full.
        for (size_t i : unique_pages) {
          AppendDetail(out[i].event, absl::StrCat("dedup: not recorded: ", s.message()));
        }
      }
    }
  }
  if (observer_ != nullptr) {
    std::vector<const FetchEvent*> events;
    events.reserve(out.size());
    for (const ProcessedPage& page : out) events.push_back(&page.event);
    observer_->OnFetchBatch(events);
  }
  return out;
}

}  // namespace crawler::fetcher
