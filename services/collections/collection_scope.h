// CollectionScope: a collection's seeds parsed and canonicalised, and the scope every part of a
// crawl applies to its URLs (lib/scope/scope.h), built from the collection's scope options and
// those seeds (same_site_only admits the seeds' sites). The scheduler checks seeds and explained
// URLs against it; the fetcher checks every outlink.
//
// Thread-safety: immutable after Create; safe to share between threads.
#ifndef CRAWLER_SERVICES_COLLECTIONS_COLLECTION_SCOPE_H_
#define CRAWLER_SERVICES_COLLECTIONS_COLLECTION_SCOPE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/scope/scope.h"
#include "lib/url/canonical_url.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"
#include "services/collections/collection.h"

namespace crawler::collections {

class CollectionScope {
 public:
  // Validates the collection (Collection::Validate), parses and canonicalises its seeds and
  // builds the scope (loading the Public Suffix List for same-site scopes). Errors:
  // kInvalidArgument naming a malformed seed, suffix or pattern, or the invalid field.
  static absl::StatusOr<std::unique_ptr<CollectionScope>> Create(
      const Collection& collection, const url::CanonicalizeOptions& canonical);

  const scope::Scope& scope() const { return *scope_; }
  // The seeds, parsed and canonicalised, in the collection's order.
  const std::vector<url::Url>& seed_urls() const { return seed_urls_; }
  const std::vector<url::CanonicalUrl>& seed_canonical() const { return seed_canonical_; }
  // The sitemap seeds (Collection::sitemap_seeds), parsed and canonicalised, in order.
  const std::vector<url::Url>& sitemap_seed_urls() const { return sitemap_seed_urls_; }
  const std::vector<url::CanonicalUrl>& sitemap_seed_canonical() const {
    return sitemap_seed_canonical_;
  }

  // The seeds the scope depends on, as the collection gives them: for same_site_only, the first
  // seed of each site (the scope's sites); otherwise the first seed. What a fetcher, which
  // builds the scope but never feeds seeds, needs of the seed list.
  std::vector<std::string> ScopeSeeds() const;

 private:
  CollectionScope() = default;

  std::vector<std::string> seeds_;  // as the collection gives them, sitemap seeds after
  std::unique_ptr<url::PublicSuffixList> psl_;  // only for same-site scopes; scope_ uses it
  std::unique_ptr<scope::Scope> scope_;
  std::vector<url::Url> seed_urls_;
  std::vector<url::CanonicalUrl> seed_canonical_;
  std::vector<url::Url> sitemap_seed_urls_;
  std::vector<url::CanonicalUrl> sitemap_seed_canonical_;
};

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_COLLECTION_SCOPE_H_
