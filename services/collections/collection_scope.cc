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
  if (collection.scope.same_site_only) {
    absl::StatusOr<url::PublicSuffixList> loaded = url::PublicSuffixList::LoadDefault();
    if (!loaded.ok()) return loaded.status();
    out->psl_ = std::make_unique<url::PublicSuffixList>(*std::move(loaded));
  }
  for (const std::string& seed : collection.seeds) {
    absl::StatusOr<url::Url> parsed = url::Url::Parse(seed);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid seed \"", seed, "\": ", parsed.status().message()));
    }
    absl::StatusOr<url::CanonicalUrl> canonical_url = url::Canonicalize(*parsed, canonical);
    if (!canonical_url.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid seed \"", seed, "\": ", canonical_url.status().message()));
    }
    out->seed_urls_.push_back(*std::move(parsed));
    out->seed_canonical_.push_back(*std::move(canonical_url));
  }
  absl::StatusOr<scope::Scope> built =
      scope::Scope::Create(collection.scope, out->seed_urls_, out->psl_.get());
  if (!built.ok()) return built.status();
  out->scope_ = std::make_unique<scope::Scope>(*std::move(built));
  return out;
}

std::vector<std::string> CollectionScope::ScopeSeeds() const {
  if (seeds_.empty()) return {};
  if (psl_ == nullptr) return {seeds_.front()};
  std::vector<std::string> out;
  absl::flat_hash_set<std::string> sites;
  for (size_t i = 0; i < seed_urls_.size(); ++i) {
    if (sites.insert(psl_->RegistrableDomain(seed_urls_[i].host())).second) {
      out.push_back(seeds_[i]);
    }
  }
  return out;
}

}  // namespace crawler::collections
