#include "services/collections/grpc/collection_convert.h"

#include <string>
#include <utility>

#include "services/collections/grpc/revisit_convert.h"
#include "services/common/grpc/proto_convert.h"

namespace crawler::collections {
namespace {

using grpc_common::DurationToProto;
using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::OptionalDurationFromProto;

static_assert(v1::ScopeVerdict_MAX == v1::SCOPE_VERDICT_TRAP_TOO_MANY_PARAMS);

}  // namespace

v1::ScopeOptions ToProto(const scope::ScopeOptions& scope) {
  v1::ScopeOptions p;
  p.mutable_allowed_host_suffixes()->Add(scope.allowed_host_suffixes.begin(),
                                         scope.allowed_host_suffixes.end());
  p.set_same_site_only(scope.same_site_only);
  p.mutable_include_patterns()->Add(scope.include_patterns.begin(), scope.include_patterns.end());
  p.mutable_exclude_patterns()->Add(scope.exclude_patterns.begin(), scope.exclude_patterns.end());
  if (scope.max_depth.has_value()) p.set_max_depth(*scope.max_depth);
  return p;
}

scope::ScopeOptions FromProto(const v1::ScopeOptions& p) {
  scope::ScopeOptions scope;
  scope.allowed_host_suffixes.assign(p.allowed_host_suffixes().begin(),
                                     p.allowed_host_suffixes().end());
  scope.same_site_only = p.same_site_only();
  scope.include_patterns.assign(p.include_patterns().begin(), p.include_patterns().end());
  scope.exclude_patterns.assign(p.exclude_patterns().begin(), p.exclude_patterns().end());
  if (p.has_max_depth()) scope.max_depth = p.max_depth();
  return scope;
}

v1::ScopeVerdict ToProto(scope::Verdict verdict) {
  switch (verdict) {
    case scope::Verdict::kInScope:
      return v1::SCOPE_VERDICT_IN_SCOPE;
    case scope::Verdict::kHostNotAllowed:
      return v1::SCOPE_VERDICT_HOST_NOT_ALLOWED;
    case scope::Verdict::kOtherSite:
      return v1::SCOPE_VERDICT_OTHER_SITE;
    case scope::Verdict::kNotIncluded:
      return v1::SCOPE_VERDICT_NOT_INCLUDED;
    case scope::Verdict::kExcluded:
      return v1::SCOPE_VERDICT_EXCLUDED;
    case scope::Verdict::kTooDeep:
      return v1::SCOPE_VERDICT_TOO_DEEP;
    case scope::Verdict::kTooLong:
      return v1::SCOPE_VERDICT_TRAP_TOO_LONG;
    case scope::Verdict::kRepeatedSegments:
      return v1::SCOPE_VERDICT_TRAP_REPEATED_SEGMENTS;
    case scope::Verdict::kTooManyParams:
      return v1::SCOPE_VERDICT_TRAP_TOO_MANY_PARAMS;
  }
  return v1::SCOPE_VERDICT_UNSPECIFIED;  // unreachable: the switch covers every verdict
}

absl::StatusOr<scope::Verdict> FromProto(v1::ScopeVerdict verdict, std::string_view field) {
  switch (verdict) {
    case v1::SCOPE_VERDICT_IN_SCOPE:
      return scope::Verdict::kInScope;
    case v1::SCOPE_VERDICT_HOST_NOT_ALLOWED:
      return scope::Verdict::kHostNotAllowed;
    case v1::SCOPE_VERDICT_OTHER_SITE:
      return scope::Verdict::kOtherSite;
    case v1::SCOPE_VERDICT_NOT_INCLUDED:
      return scope::Verdict::kNotIncluded;
    case v1::SCOPE_VERDICT_EXCLUDED:
      return scope::Verdict::kExcluded;
    case v1::SCOPE_VERDICT_TOO_DEEP:
      return scope::Verdict::kTooDeep;
    case v1::SCOPE_VERDICT_TRAP_TOO_LONG:
      return scope::Verdict::kTooLong;
    case v1::SCOPE_VERDICT_TRAP_REPEATED_SEGMENTS:
      return scope::Verdict::kRepeatedSegments;
    case v1::SCOPE_VERDICT_TRAP_TOO_MANY_PARAMS:
      return scope::Verdict::kTooManyParams;
    case v1::SCOPE_VERDICT_UNSPECIFIED:
      return InvalidField(field, "required");
    default:
      return InvalidField(field,
                          "unknown scope verdict " + std::to_string(static_cast<int>(verdict)));
  }
}

v1::CollectionLimits ToProto(const CollectionLimits& limits) {
  v1::CollectionLimits p;
  if (limits.max_pages != CollectionLimits::kUnlimited) p.set_max_pages(limits.max_pages);
  if (limits.max_pages_per_host != CollectionLimits::kUnlimited) {
    p.set_max_pages_per_host(limits.max_pages_per_host);
  }
  return p;
}

CollectionLimits FromProto(const v1::CollectionLimits& p) {
  CollectionLimits limits;
  if (p.has_max_pages()) limits.max_pages = p.max_pages();
  if (p.has_max_pages_per_host()) limits.max_pages_per_host = p.max_pages_per_host();
  return limits;
}

v1::PolitenessOptions ToProto(const politeness::PolitenessOptions& politeness) {
  v1::PolitenessOptions p;
  *p.mutable_min_delay() = DurationToProto(politeness.min_delay);
  *p.mutable_max_delay() = DurationToProto(politeness.max_delay);
  p.set_delay_factor(politeness.delay_factor);
  *p.mutable_max_crawl_delay() = DurationToProto(politeness.max_crawl_delay);
  p.set_max_connections_per_host(politeness.max_connections_per_host);
  *p.mutable_error_backoff_base() = DurationToProto(politeness.error_backoff_base);
  *p.mutable_error_backoff_max() = DurationToProto(politeness.error_backoff_max);
  p.set_jitter_fraction(politeness.jitter_fraction);
  *p.mutable_max_retry_after() = DurationToProto(politeness.max_retry_after);
  return p;
}

absl::StatusOr<politeness::PolitenessOptions> FromProto(const v1::PolitenessOptions& p,
                                                        std::string_view field) {
  politeness::PolitenessOptions politeness;  // the defaults of every unset field
  struct DurationField {
    bool present;
    const google::protobuf::Duration& value;
    const char* name;
    absl::Duration* out;
  };
  const DurationField durations[] = {
      {p.has_min_delay(), p.min_delay(), "min_delay", &politeness.min_delay},
      {p.has_max_delay(), p.max_delay(), "max_delay", &politeness.max_delay},
      {p.has_max_crawl_delay(), p.max_crawl_delay(), "max_crawl_delay",
       &politeness.max_crawl_delay},
      {p.has_error_backoff_base(), p.error_backoff_base(), "error_backoff_base",
       &politeness.error_backoff_base},
      {p.has_error_backoff_max(), p.error_backoff_max(), "error_backoff_max",
       &politeness.error_backoff_max},
      {p.has_max_retry_after(), p.max_retry_after(), "max_retry_after",
       &politeness.max_retry_after},
  };
  for (const DurationField& d : durations) {
    absl::StatusOr<absl::Duration> value =
        OptionalDurationFromProto(d.present, d.value, *d.out, FieldPath(field, d.name));
    if (!value.ok()) return value.status();
    *d.out = *value;
  }
  if (p.has_delay_factor()) politeness.delay_factor = p.delay_factor();
  if (p.has_max_connections_per_host()) {
    politeness.max_connections_per_host = p.max_connections_per_host();
  }
  if (p.has_jitter_fraction()) politeness.jitter_fraction = p.jitter_fraction();
  return politeness;
}

v1::CollectionRevisit ToProto(const CollectionRevisit& revisit) {
  v1::CollectionRevisit p;
  *p.mutable_options() = ToProto(revisit.options);
  p.set_budget_visits_per_day(revisit.budget_visits_per_day);
  return p;
}

absl::StatusOr<CollectionRevisit> FromProto(const v1::CollectionRevisit& p,
                                            std::string_view field) {
  absl::StatusOr<RevisitOptions> options = FromProto(p.options(), FieldPath(field, "options"));
  if (!options.ok()) return options.status();
  return CollectionRevisit{.options = *std::move(options),
                           .budget_visits_per_day = p.budget_visits_per_day()};
}

v1::CollectionFocus ToProto(const CollectionFocus& focus) {
  v1::CollectionFocus p;
  p.set_target(focus.target);
  p.set_policy(focus.policy);
  p.set_external(focus.external);
  p.set_max_in_flight(focus.max_in_flight);
  p.set_seed(focus.seed);
  return p;
}

CollectionFocus FromProto(const v1::CollectionFocus& p) {
  CollectionFocus focus;  // the defaults of every unset field
  if (!p.target().empty()) focus.target = p.target();
  if (!p.policy().empty()) focus.policy = p.policy();
  if (!p.external().empty()) focus.external = p.external();
  if (p.has_max_in_flight()) focus.max_in_flight = p.max_in_flight();
  if (p.has_seed()) focus.seed = p.seed();
  return focus;
}

v1::Collection ToProto(const Collection& collection) {
  v1::Collection p;
  p.set_name(collection.name);
  p.mutable_seeds()->Add(collection.seeds.begin(), collection.seeds.end());
  *p.mutable_scope() = ToProto(collection.scope);
  *p.mutable_limits() = ToProto(collection.limits);
  *p.mutable_politeness() = ToProto(collection.politeness);
  p.mutable_store_content_types()->Add(collection.store_content_types.begin(),
                                       collection.store_content_types.end());
  p.set_store_bodies(collection.store_bodies);
  p.set_fingerprints(collection.fingerprints);
  *p.mutable_revisit() = ToProto(collection.revisit);
  *p.mutable_focus() = ToProto(collection.focus);
  p.set_record_links(collection.record_links);
  p.mutable_sitemap_seeds()->Add(collection.sitemap_seeds.begin(), collection.sitemap_seeds.end());
  p.set_sitemap_discovery(collection.sitemap_discovery);
  p.set_render(collection.render.mode);
  *p.mutable_render_time() = DurationToProto(collection.render.time_per_page);
  p.set_render_max_requests(collection.render.max_requests_per_page);
  p.set_render_max_bytes(collection.render.max_bytes_per_page);
  return p;
}

absl::StatusOr<Collection> FromProto(const v1::Collection& p, std::string_view field) {
  Collection collection;
  if (p.name().empty()) return InvalidField(FieldPath(field, "name"), "required");
  collection.name = p.name();
  collection.seeds.assign(p.seeds().begin(), p.seeds().end());
  collection.scope = FromProto(p.scope());
  collection.limits = FromProto(p.limits());
  absl::StatusOr<politeness::PolitenessOptions> politeness =
      FromProto(p.politeness(), FieldPath(field, "politeness"));
  if (!politeness.ok()) return politeness.status();
  collection.politeness = *politeness;
  collection.store_content_types.assign(p.store_content_types().begin(),
                                        p.store_content_types().end());
  if (p.has_store_bodies()) collection.store_bodies = p.store_bodies();
  if (p.has_fingerprints()) collection.fingerprints = p.fingerprints();
  absl::StatusOr<CollectionRevisit> revisit = FromProto(p.revisit(), FieldPath(field, "revisit"));
  if (!revisit.ok()) return revisit.status();
  collection.revisit = *std::move(revisit);
  collection.focus = FromProto(p.focus());
  if (p.has_record_links()) collection.record_links = p.record_links();
  collection.sitemap_seeds.assign(p.sitemap_seeds().begin(), p.sitemap_seeds().end());
  if (p.has_sitemap_discovery()) collection.sitemap_discovery = p.sitemap_discovery();
  if (p.has_render()) collection.render.mode = p.render();
  absl::StatusOr<absl::Duration> render_time =
      OptionalDurationFromProto(p.has_render_time(), p.render_time(),
                                collection.render.time_per_page, FieldPath(field, "render_time"));
  if (!render_time.ok()) return render_time.status();
  collection.render.time_per_page = *render_time;
  if (p.has_render_max_requests()) collection.render.max_requests_per_page = p.render_max_requests();
  if (p.has_render_max_bytes()) collection.render.max_bytes_per_page = p.render_max_bytes();
  return collection;
}

}  // namespace crawler::collections
