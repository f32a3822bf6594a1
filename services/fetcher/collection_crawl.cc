#include "services/fetcher/collection_crawl.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/fetcher/collection_options.h"

namespace crawler::fetcher {

absl::StatusOr<const url::PublicSuffixList*> SharedPublicSuffixList::Get() {
  absl::MutexLock lock(&mu_);
  if (psl_ == nullptr) {
    absl::StatusOr<url::PublicSuffixList> loaded = url::PublicSuffixList::LoadDefault();
    if (!loaded.ok()) return loaded.status();
    psl_ = std::make_unique<url::PublicSuffixList>(*std::move(loaded));
  }
  return psl_.get();
}

CollectionCrawl::CollectionCrawl(CollectionCrawlSettings settings, const CrawlProcessParts& parts)
    : settings_(std::move(settings)),
      parts_(parts),
      indexer_(std::make_shared<ArchiveIndexer>(ArchiveIndexerOptions{
          .warc_dir = settings_.warc_dir,
          .log = settings_.log,
          .indexed = settings_.archive_indexed})) {}

absl::StatusOr<std::unique_ptr<CollectionCrawl>> CollectionCrawl::Open(
    const collections::Collection& collection, CollectionCrawlSettings settings,
    const CrawlProcessParts& parts) {
  if (parts.politeness == nullptr || parts.resolver == nullptr || parts.guard == nullptr ||
      parts.clock == nullptr || parts.psl == nullptr) {
    return absl::InvalidArgumentError(
        "a crawl needs politeness, a resolver, a guard, a clock and the Public Suffix List");
  }
  std::unique_ptr<CollectionCrawl> crawl(new CollectionCrawl(std::move(settings), parts));
  // The crawl log's folder (data/logs in a fetcher) is made here; a failure shows as the log's.
  std::error_code ec;
  std::filesystem::create_directories(
      std::filesystem::path(crawl->settings_.crawl_log).parent_path(), ec);
  absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(crawl->settings_.crawl_log);
  if (!log.ok()) return log.status();
  crawl->log_ = *std::move(log);
  crawl->observers_.Add(crawl->log_.get());
  crawl->observers_.Add(&crawl->stats_);
  if (parts.metrics != nullptr) {
    crawl->observers_.Add(&parts.metrics->ForCollection(collection.name));
  }
  if (parts.observer != nullptr) crawl->observers_.Add(parts.observer);
  if (absl::Status s = crawl->Reconfigure(collection); !s.ok()) return s;
  return crawl;
}

CollectionCrawl::~CollectionCrawl() { (void)CloseWarc(); }

absl::Status CollectionCrawl::Reconfigure(const collections::Collection& collection) {
  absl::StatusOr<std::unique_ptr<collections::CollectionScope>> scope =
      collections::CollectionScope::Create(collection, {});
  if (!scope.ok()) return scope.status();
  scope_ = *std::move(scope);
  collection_ = collection;
  links_.reset();
  if (collection_.record_links || collection_.focus.enabled()) return OpenLinks();
  return absl::OkStatus();
}

absl::Status CollectionCrawl::OpenLinks() {
  const bool by_host = collection_.focus.external == "host";
  const url::PublicSuffixList* psl = nullptr;
  if (!by_host) {
    absl::StatusOr<const url::PublicSuffixList*> loaded = parts_.psl->Get();
    if (!loaded.ok()) return loaded.status();
    psl = *loaded;
  }
  if (settings_.links_shared && !settings_.mark_links_seen && collection_.focus.enabled()) {
    return absl::FailedPreconditionError(
        "a focused collection needs the dedup service (the fetcher's `dedup` key): it holds the "
        "links seen by every fetcher, so that each counts once");
  }
  const std::filesystem::path path(settings_.links_file);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", path.parent_path().string(), ": ", ec.message()));
  }
  absl::StatusOr<std::unique_ptr<LinkLedger>> links =
      LinkLedger::Open(path.string(), psl, by_host, settings_.mark_links_seen);
  if (!links.ok()) return links.status();
  links_ = *std::move(links);
  return absl::OkStatus();
}

absl::Status CollectionCrawl::OpenWarc(uint64_t seed) {
  if (absl::Status s = CloseWarc(); !s.ok()) return s;
  if (warc_ != nullptr) {
    warc_folded_.records += warc_->RecordsWritten();
    warc_folded_.bytes += warc_->BytesWritten();
    warc_.reset();
  }
  if (!collection_.store_bodies) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(settings_.warc_dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create WARC directory ", settings_.warc_dir, ": ", ec.message()));
  }
  absl::StatusOr<std::unique_ptr<warc::WarcWriter>> warc =
      warc::WarcWriter::Open({.directory = settings_.warc_dir,
                              .prefix = settings_.warc_prefix,
                              .max_file_bytes = settings_.warc_max_file_bytes,
                              .description = settings_.warc_description,
                              .http_header_user_agent = settings_.user_agent,
                              .robots_policy = settings_.fetcher.obey_robots ? "obey" : "ignore",
                              .sync = settings_.fsync,
                              .write_index = true,
                              .indexed =
                                  [indexer = indexer_](const std::string& file,
                                                       const std::string& index) {
                                    indexer->Announce(file, index);
                                  }},
                             *parts_.clock, seed);
  if (!warc.ok()) return warc.status();
  warc_ = *std::move(warc);
  warc_open_ = true;
  return absl::OkStatus();
}

absl::Status CollectionCrawl::CloseWarc() {
  // The renderer's loader archives into this run's writer: it stops first (the run's Fetchers,
  // its only users, are gone by now). Its figures stay in the totals.
  std::unique_ptr<BrowserPageRenderer> renderer;
  {
    absl::MutexLock lock(&renderer_mu_);
    renderer = std::move(renderer_);
    if (renderer != nullptr) {
      browser::BrowserStats stats = renderer->browser_stats();
      stats.memory_bytes = 0;
      AddBrowserStats(stats, browser_folded_.has_value() ? *browser_folded_
                                                         : browser_folded_.emplace());
    }
  }
  renderer.reset();
  if (!warc_open_) return absl::OkStatus();
  warc_open_ = false;
  absl::Status closed = warc_->Close();
  // The run's last file, and any the periodic passes have not reached yet.
  indexer_->IndexPending();
  return closed;
}

FetcherSnapshot::Warc CollectionCrawl::warc_totals() const {
  FetcherSnapshot::Warc totals = warc_folded_;
  totals.collection = collection_.name;
  if (warc_ != nullptr) {
    totals.records += warc_->RecordsWritten();
    totals.bytes += warc_->BytesWritten();
  }
  return totals;
}

std::optional<browser::BrowserStats> CollectionCrawl::browser_totals() const {
  absl::MutexLock lock(&renderer_mu_);
  std::optional<browser::BrowserStats> totals = browser_folded_;
  if (renderer_ != nullptr) {
    AddBrowserStats(renderer_->browser_stats(), totals.has_value() ? *totals : totals.emplace());
  }
  return totals;
}

absl::StatusOr<std::unique_ptr<Fetcher>> CollectionCrawl::NewFetcher(
    const FetcherOptions& base, frontier::FrontierClient& frontier, int partition_header) {
  FetcherOptions options =
      FetcherOptionsFor(base, collection_, settings_.user_agent, partition_header);
  options.processing.link_sink = links_.get();
  if (options.processing.render != collections::RenderMode::kNever) {
    absl::MutexLock lock(&renderer_mu_);
    if (renderer_ == nullptr) {
      BrowserRenderOptions render = options.render;
      render.loader.http = options.http;
      render.loader.max_decoded_bytes = options.processing.max_decoded_bytes;
      absl::StatusOr<std::unique_ptr<BrowserPageRenderer>> renderer =
          BrowserPageRenderer::Create(render, *parts_.resolver, *parts_.guard, warc_.get());
      if (!renderer.ok()) {
        return absl::Status(renderer.status().code(),
                            absl::StrCat("collection ", collection_.name, " renders pages (render: ",
                                         collection_.render.mode, "): ",
                                         renderer.status().message()));
      }
      renderer_ = *std::move(renderer);
    }
    options.processing.renderer = renderer_.get();
  }
  return Fetcher::Create(options, {.frontier = &frontier,
                                   .politeness = parts_.politeness,
                                   .resolver = parts_.resolver,
                                   .guard = parts_.guard,
                                   .scope = &scope_->scope(),
                                   .clock = parts_.clock,
                                   .dedup = collection_.fingerprints ? parts_.dedup : nullptr,
                                   .warc = warc_.get(),
                                   .observer = &observers_});
}

}  // namespace crawler::fetcher
