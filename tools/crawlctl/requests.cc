#include "tools/crawlctl/requests.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/collections/collection_keys.h"
#include "services/collections/grpc/collection_convert.h"
#include "services/common/config/key_table.h"

namespace crawler::crawlctl {
namespace {

// YAML key -> Collection field path. Keys that an update cannot change (name, seeds,
// sitemap_seeds) are absent.
// A test checks that every other key of CollectionKeys() is here and every path exists in
// crawler.v1.Collection, so a key added to the table without a path fails the build's tests.
constexpr std::pair<std::string_view, std::string_view> kMaskPaths[] = {
    {"sitemap_discovery", "sitemap_discovery"},
    {"store_bodies", "store_bodies"},
    {"fingerprints", "fingerprints"},
    {"store_content_types", "store_content_types"},
    {"allow_host_suffixes", "scope.allowed_host_suffixes"},
    {"same_site_only", "scope.same_site_only"},
    {"include", "scope.include_patterns"},
    {"exclude", "scope.exclude_patterns"},
    {"max_depth", "scope.max_depth"},
    {"max_pages", "limits.max_pages"},
    {"max_pages_per_host", "limits.max_pages_per_host"},
    {"min_delay", "politeness.min_delay"},
    {"max_delay", "politeness.max_delay"},
    {"delay_factor", "politeness.delay_factor"},
    {"max_crawl_delay", "politeness.max_crawl_delay"},
    {"max_connections_per_host", "politeness.max_connections_per_host"},
    {"revisit", "revisit.options.enabled"},
    {"revisit_policy", "revisit.options.policy"},
    {"revisit_budget", "revisit.budget_visits_per_day"},
    {"revisit_min_interval", "revisit.options.min_interval"},
    {"revisit_max_interval", "revisit.options.max_interval"},
    {"revisit_min_visits", "revisit.options.policy_options.optimal.min_visits_per_day"},
    {"revisit_prior", "revisit.options.prior"},
    {"revisit_nutch_initial_interval", "revisit.options.policy_options.nutch.initial_interval"},
    {"revisit_nutch_min_interval", "revisit.options.policy_options.nutch.min_interval"},
    {"change_threshold_bits", "revisit.options.change_threshold_bits"},
    {"focus", "focus.target"},
    {"focus_policy", "focus.policy"},
    {"focus_external", "focus.external"},
    {"focus_in_flight", "focus.max_in_flight"},
    {"focus_seed", "focus.seed"},
    {"record_links", "record_links"},
    {"render", "render"},
    {"render_time", "render_time"},
    {"render_max_requests", "render_max_requests"},
    {"render_max_bytes", "render_max_bytes"},
};

bool Has(const std::vector<std::string>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

absl::StatusOr<CollectionFile> ParseCollectionYaml(std::string_view yaml,
                                                   std::string_view source) {
  absl::StatusOr<YAML::Node> parsed = config::ParseYamlDocument(yaml, source);
  if (!parsed.ok()) return parsed.status();
  YAML::Node root = *std::move(parsed);
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(source), ": not a mapping of collection keys (see docs/configuration.md)"));
  }
  CollectionFile file;
  if (absl::Status s = collections::CollectionKeys().Load(root, file.collection); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": ", s.message()));
  }
  for (const auto& entry : root) file.keys.push_back(entry.first.Scalar());
  return file;
}

absl::StatusOr<CollectionFile> LoadCollectionFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return ParseCollectionYaml(text, path);
}

absl::StatusOr<v1::CreateCollectionRequest> BuildCreateRequest(const CollectionFile& file) {
  // Collection's own default name ("default") suits a standalone crawl, not a shared scheduler.
  if (!Has(file.keys, "name")) {
    return absl::InvalidArgumentError("the collection file must set \"name\"");
  }
  if (absl::Status s = file.collection.Validate(); !s.ok()) return s;
  v1::CreateCollectionRequest request;
  *request.mutable_collection() = collections::ToProto(file.collection);
  return request;
}

std::optional<std::string> UpdateMaskPath(std::string_view key) {
  for (const auto& [name, path] : kMaskPaths) {
    if (name == key) return std::string(path);
  }
  return std::nullopt;
}

absl::StatusOr<v1::UpdateCollectionRequest> BuildUpdateRequest(std::string_view name,
                                                               const CollectionFile& file) {
  if (Has(file.keys, "name") && file.collection.name != name) {
    return absl::InvalidArgumentError(absl::StrCat("the file names collection \"",
                                                   file.collection.name, "\", not \"", std::string(name),
                                                   "\" (a collection cannot be renamed)"));
  }
  if (Has(file.keys, "seeds")) {
    return absl::InvalidArgumentError(
        "an update cannot change \"seeds\"; add seeds with `crawlctl seeds add`");
  }
  if (Has(file.keys, "sitemap_seeds")) {
    return absl::InvalidArgumentError(
        "an update cannot change \"sitemap_seeds\"; add them with `crawlctl seeds add --sitemap`");
  }
  v1::UpdateCollectionRequest request;
  collections::Collection collection = file.collection;
  collection.name = std::string(name);
  *request.mutable_collection() = collections::ToProto(collection);
  for (const std::string& key : file.keys) {
    if (key == "name") continue;
    std::optional<std::string> path = UpdateMaskPath(key);
    if (!path.has_value()) {
      // Only a key added to CollectionKeys() without a path here reaches this (a test guards it).
      return absl::InternalError(absl::StrCat("crawlctl cannot update key \"", key, "\""));
    }
    request.mutable_update_mask()->add_paths(*path);
  }
  if (request.update_mask().paths().empty()) {
    return absl::InvalidArgumentError("the file changes nothing (it sets no key but name)");
  }
  return request;
}

SeedBatcher::SeedBatcher(std::istream& in, size_t batch_size) : in_(in), batch_size_(batch_size) {
  if (batch_size_ == 0 || batch_size_ > kMaxSeedsPerMessage) {
    std::abort();  // REQUIRES violated: a bug of the caller
  }
}

std::optional<v1::AddSeedsRequest> SeedBatcher::Next(const std::string& collection) {
  v1::AddSeedsRequest request;
  request.set_collection(collection);
  request.set_sitemaps(sitemaps_);
  size_t bytes = 0;
  std::string line;
  while (static_cast<size_t>(request.seeds_size()) < batch_size_) {
    std::string url;
    if (!pending_.empty()) {
      url = std::move(pending_);
      pending_.clear();
    } else if (std::getline(in_, line)) {
      const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
      if (trimmed.empty() || trimmed.front() == '#') continue;
      url = std::string(trimmed);
    } else {
      break;
    }
    if (request.seeds_size() > 0 && bytes + url.size() > kMaxRequestBytes) {
      pending_ = std::move(url);
      break;
    }
    bytes += url.size();
    request.add_seeds(std::move(url));
  }
  if (request.seeds().empty()) return std::nullopt;
  return request;
}

absl::StatusOr<std::vector<std::string>> SplitOffSeeds(v1::CreateCollectionRequest& request,
                                                       size_t max_bytes) {
  if (request.ByteSizeLong() <= max_bytes) return std::vector<std::string>();
  const v1::Collection& c = request.collection();
  if (c.scope().same_site_only() || (!c.focus().target().empty() && c.focus().target() != "none")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the collection's definition takes ", request.ByteSizeLong(), " bytes, more than the ",
        max_bytes, " of one request; its seeds cannot be sent apart (a same_site_only scope is "
        "made of the sites of the seeds given at creation): give fewer seeds"));
  }
  v1::Collection& collection = *request.mutable_collection();
  // Keep seeds while the definition without any is below the bound.
  v1::Collection bare = collection;
  bare.clear_seeds();
  size_t bytes = bare.ByteSizeLong();
  int keep = 0;
  while (keep < collection.seeds_size() &&
         (keep == 0 || bytes + collection.seeds(keep).size() + 8 <= max_bytes)) {
    bytes += collection.seeds(keep).size() + 8;  // a seed's tag and length, generously
    ++keep;
  }
  if (absl::Status fits = FitsOneRequest(bytes, "the collection's definition without its seeds");
      !fits.ok()) {
    return fits;
  }
  std::vector<std::string> rest(collection.seeds().begin() + keep, collection.seeds().end());
  collection.mutable_seeds()->DeleteSubrange(keep, collection.seeds_size() - keep);
  return rest;
}

absl::Status FitsOneRequest(size_t bytes, std::string_view what) {
  if (bytes <= kServerMaxRequestBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s takes %.1f MiB, more than the %d MiB the server accepts in one request: a pattern or "
      "another key is too large",
      what, static_cast<double>(bytes) / (1 << 20), kServerMaxRequestBytes >> 20));
}

std::vector<v1::ExplainUrlRequest> BuildExplainRequests(const std::string& collection,
                                                        const std::vector<std::string>& urls,
                                                        size_t max_per_request) {
  std::vector<v1::ExplainUrlRequest> requests;
  for (size_t i = 0; i < urls.size(); i += max_per_request) {
    v1::ExplainUrlRequest& request = requests.emplace_back();
    request.set_collection(collection);
    const size_t end = std::min(urls.size(), i + max_per_request);
    for (size_t j = i; j < end; ++j) request.add_urls(urls[j]);
  }
  return requests;
}

}  // namespace crawler::crawlctl
