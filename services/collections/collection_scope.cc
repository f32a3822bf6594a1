#include "services/collections/collection_scope.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace crawler::collections {

absl::StatusOr<std::unique_ptr<CollectionScope>> CollectionScope::Create(
    const Collection& collection, const url::CanonicalizeOptions& canonical) {
  if (absl::Status s = collection.Validate(); !s.ok()) return s;
  std::unique_ptr<CollectionScope> out(new CollectionScope());
  out->seeds_ = collection.seeds;
  out->seeds_.insert(out->seeds_.end(), collection.sitemap_seeds.begin(),
                     collection.sitemap_seeds.end());
  if (collection.scope.same_site_only) {
    absl::StatusOr<url::PublicSuffixList> loaded = url::PublicSuffixList::LoadDefault();
    if (!loaded.ok()) return loaded.status();
    out->psl_ = std::make_unique<url::PublicSuffixList>(*std::move(loaded));
  }
  auto parse = [&canonical](const std::string& seed, std::string_view what,
                            std::vector<url::Url>& urls,
                            std::vector<url::CanonicalUrl>& canonicals) -> absl::Status {
    absl::StatusOr<url::Url> parsed = url::Url::Parse(seed);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("invalid ", std::string(what), " \"", seed,
                                                     "\": ", parsed.status().message()));
    }
    absl::StatusOr<url::CanonicalUrl> canonical_url = url::Canonicalize(*parsed, canonical);
    if (!canonical_url.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("invalid ", std::string(what), " \"", seed,
                                                     "\": ", canonical_url.status().message()));
    }
    urls.push_back(*std::move(parsed));
    canonicals.push_back(*std::move(canonical_url));
    return absl::OkStatus();
  };
  for (const std::string& seed : collection.seeds) {
    if (absl::Status s = parse(seed, "seed", out->seed_urls_, out->seed_canonical_); !s.ok()) {
      return s;
    }
  }
  for (const std::string& seed : collection.sitemap_seeds) {
    if (absl::Status s = parse(seed, "sitemap seed", out->sitemap_seed_urls_,
                               out->sitemap_seed_canonical_);
        !s.ok()) {
      return s;
    }
  }
  // A sitemap seed's site is a seed's site: its pages are what the collection was given.
  std::vector<url::Url> scope_seeds = out->seed_urls_;
  scope_seeds.insert(scope_seeds.end(), out->sitemap_seed_urls_.begin(),
                     out->sitemap_seed_urls_.end());
  absl::StatusOr<scope::Scope> built =
      scope::Scope::Create(collection.scope, scope_seeds, out->psl_.get());
  if (!built.ok()) return built.status();
  out->scope_ = std::make_unique<scope::Scope>(*std::move(built));
  return out;
}

std::vector<std::string> CollectionScope::ScopeSeeds() const {
  if (seeds_.empty()) return {};
  if (psl_ == nullptr) return {seeds_.front()};
  std::vector<std::string> out;
  absl::flat_hash_set<std::string> sites;
  // seeds_ holds the seeds, then the sitemap seeds, as the two URL lists do.
  for (size_t i = 0; i < seeds_.size(); ++i) {
    const url::Url& url = i < seed_urls_.size() ? seed_urls_[i]
                                                : sitemap_seed_urls_[i - seed_urls_.size()];
    if (sites.insert(psl_->RegistrableDomain(url.host())).second) out.push_back(seeds_[i]);
  }
  return out;
}

}  // namespace crawler::collections
