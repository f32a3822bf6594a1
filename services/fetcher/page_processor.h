// PageProcessor: everything the fetcher does with a finished HTTP transfer of a page, off the
// network thread (docs/architecture.md §6, after "HTTP GET"): classify the outcome, undo transfer
// and content codings (bounded), sniff the media type, extract links and visible text from HTML and
// entries from sitemaps, fingerprint (exact digest + SimHash), ask dedup, write WARC records, and
// turn links into in-scope canonical URLs for the frontier.
//
// WARC records per page: response (new content, errors, redirects) or revisit (exact
// duplicate: identical-payload-digest; 304: server-not-modified); then request; then metadata
// with the outlinks, as Heritrix writes them, so an archive shows why each URL was crawled. The
// records of a whole batch go to the WARC writer in one WriteAll (one lock, one write()).
//
// A dedup check that fails (the index unreachable, a deadline) neither fails nor holds up the
// batch: its pages are archived in full (response records, never revisits), their events'
// detail says "dedup unavailable: <error>", FetcherStats::dedup_unavailable counts them, and
// their content is not recorded (the index is likely still down; asking again would only wait
// out a second deadline). Nothing is lost: a later copy of that content is archived in full too.
//
// Thread-safety: Process may be called from several threads at once; the collaborators it is
// given must be thread-safe (the WARC writer, dedup client and observer are).
#ifndef CRAWLER_SERVICES_FETCHER_PAGE_PROCESSOR_H_
#define CRAWLER_SERVICES_FETCHER_PAGE_PROCESSOR_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/fingerprint/simhash.h"
#include "lib/html/extract_page.h"
#include "lib/html/extracted_page.h"
#include "lib/scope/scope.h"
#include "lib/sitemap/sitemap_parser.h"
#include "lib/url/canonical_url.h"
#include "lib/url/url.h"
#include "lib/warc/warc_writer.h"
#include "services/dedup/dedup_client.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/fetcher_stats.h"
#include "services/fetcher/http_client.h"
#include "services/fetcher/link_sink.h"
#include "services/fetcher/page_renderer.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"

namespace crawler::fetcher {

struct PageProcessorOptions {
  // Decoded (content-coding undone) bytes parsed at most; beyond this a page is stored but not
  // parsed (a compressed bomb stops here).
  size_t max_decoded_bytes = 32 << 20;
  // Follow <img> links too (embedded resources, needed to replay pages from an archive). Off by
  // default: it multiplies the number of fetches by the images per page.
  bool follow_embeds = false;
  // Media types whose responses go into WARC files (by essence, after sniffing). Empty: all.
  std::vector<std::string> store_content_types;
  // SimHash only pages with at least this many bytes of visible text: near-duplicate detection
  // on a few words would call every short page a copy of every other.
  size_t min_text_bytes_for_simhash = 200;
  // Content fingerprints: the exact content key (dedup), the SimHash of the text (near-
  // duplicates) and the change digest of the main content (re-visit change detection,
  // FetchOutcome::change_digest). Off for a crawl that only maps a site: no duplicate is
  // detected (every page's links are followed) and re-visits fall back to the validators.
  // Off also turns off extract.collect_text: the visible text only feeds the fingerprints.
  bool fingerprints = true;
  fingerprint::SimHashOptions simhash;
  html::ExtractOptions extract;
  url::CanonicalizeOptions canonical;
  // Redirect chains are followed this many hops at most (each hop is a new URL through scope,
  // seen-set and politeness; the seen-set stops loops, this stops endless chains of new URLs).
  int max_redirect_hops = 10;
  // Redirect targets whose hop count is remembered (oldest forgotten first): bounds the memory;
  // a chain longer than this many concurrent redirects could restart its count.
  size_t max_tracked_redirects = 100'000;
  // Where every HTML page's links go (link_sink.h), and the source of each page's reward
  // (FetchOutcome::new_external_links); null: nowhere. Not owned; must outlive the fetcher.
  LinkSink* link_sink = nullptr;
  // Unresolvable references (javascript:, mailto: ...) handed to link_sink per page, at most.
  size_t max_unresolved_per_page = 100;
  // Sitemaps (leases with a sitemap level, docs/fetcher.md "Sitemaps"): the parser's bounds
  // (sitemaps.org: 50,000 URLs and 50 MB uncompressed per file, gzip inflated within them), and
  // the child sitemaps one index may add (the rest are counted, not followed). An index nests
  // at most frontier::kMaxSitemapLevel deep.
  sitemap::SitemapOptions sitemap;
  size_t max_sitemaps_per_index = 1000;
  // Which HTML pages are also rendered in a browser (page_renderer.h, docs/fetcher.md
  // "Rendering"), and the renderer (null: none, whatever `render` says; not owned, must outlive
  // the processor). The links of the rendered DOM, and the navigations the page attempted, are
  // added to the static ones; fingerprints stay those of the static HTML (what the server sent,
  // the same at every visit whatever the scripts did).
  RenderMode render = RenderMode::kNever;
  PageRenderer* renderer = nullptr;
  RenderDeciderOptions render_decider;
};

// One finished transfer of a leased URL.
struct FetchedPage {
  frontier::LeasedTask task;
  url::Url url;
  HttpResult http;
  absl::Time fetch_time;  // wall clock when the transfer ended
};

struct ProcessedPage {
  frontier::FetchOutcome outcome;
  std::vector<frontier::UrlToAdd> outlinks;
  FetchEvent event;
  // Not OK when the page's WARC records could not be written (a full disk): the page must not
  // be completed, or the archive would lose it for good.
  absl::Status archive_status;
  // The last spider-trap verdict among the dropped links (event.trap_links > 0).
  scope::Verdict trap_kind = scope::Verdict::kInScope;
};

class PageProcessor {
 public:
  // `dedup` and `warc` may be null (no dedup / no WARC output); `observer` and `counters` may
  // be null. All must outlive the processor.
  PageProcessor(const PageProcessorOptions& options, const scope::Scope& scope,
                dedup::DedupClient* dedup, warc::WarcWriter* warc, FetchObserver* observer,
                FetcherCounters* counters = nullptr);

  // Processes a batch (dedup is asked once per batch). Never fails as a whole: a page that
  // cannot be processed becomes an outcome saying so, and a page that could not be archived
  // says so in archive_status.
  std::vector<ProcessedPage> Process(std::vector<FetchedPage> pages);

 private:
  struct Parsed;
  void Classify(const FetchedPage& page, Parsed& parsed, ProcessedPage& out) const;
  // Classify's HTML part: links, text, SimHash and change digest from the decoded body.
  void ExtractHtml(const FetchedPage& page, std::string_view decoded,
                   std::string_view content_type_header, Parsed& parsed,
                   ProcessedPage& out) const;
  // ExtractHtml's rendering part: the page rendered, the links rendering found added to the
  // static ones, the DOM kept for its WARC record.
  void RenderHtml(const FetchedPage& page, std::string_view decoded, Parsed& parsed,
                  ProcessedPage& out) const;
  // Classify's sitemap part: the entries of a sitemap (plain, gzip, index or text).
  void ReadSitemap(std::string_view body, Parsed& parsed, FetchEvent& event) const;
  void CollectLinks(const FetchedPage& page, const Parsed& parsed, ProcessedPage& out);
  // CollectLinks' sitemap part: page entries become links with their hints, index entries
  // sitemaps one level down (bounded), and the event says what the sitemap held.
  void CollectSitemapLinks(const FetchedPage& page, const Parsed& parsed, ProcessedPage& out) const;
  // What a link found in a sitemap carries besides its URL.
  struct SitemapLink {
    uint32_t depth = 0;
    uint8_t level = 0;  // 0: a page
    frontier::SitemapHints hints;
  };
  void AddOutlink(const FetchedPage& page, const url::Url& target, ProcessedPage& out,
                  const SitemapLink* sitemap = nullptr) const;
  // True if this response goes into the WARC files (WARC on, type allowed).
  bool Stored(const Parsed& parsed) const;
  // Appends the page's WARC records (response or revisit, request, metadata) to `records`.
  void AddWarcRecords(const FetchedPage& page, const Parsed& parsed, const ProcessedPage& out,
                      std::vector<warc::WarcRecord>& records) const;

  // Hops of the redirect chain that led to `url` (0 if it was not a redirect target); records
  // the next hop for `target`. Returns false when the chain is too long to follow.
  bool NextRedirectHop(const std::string& url, const std::string& target);

  const PageProcessorOptions options_;
  const scope::Scope& scope_;
  dedup::DedupClient* const dedup_;
  warc::WarcWriter* const warc_;
  FetchObserver* const observer_;
  FetcherCounters* const counters_;

  std::unique_ptr<RenderDecider> render_decider_;  // set with render == kAuto

  absl::Mutex redirect_mu_;
  absl::flat_hash_map<std::string, int> redirect_hops_ ABSL_GUARDED_BY(redirect_mu_);
  std::deque<std::string> redirect_order_ ABSL_GUARDED_BY(redirect_mu_);
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_PAGE_PROCESSOR_H_
