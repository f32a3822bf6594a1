// Round trips of a collection's definition through crawler.v1 (collection_convert.h): every
// field survives, unset fields decode to the domain defaults, and malformed input is
// kInvalidArgument naming the field.
#include "services/collections/grpc/collection_convert.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::collections {
namespace {

using ::testing::HasSubstr;

void ExpectInvalid(const absl::Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(field)) << status;
}

Collection FullCollection() {
  Collection c;
  c.name = "gov-si";
  c.seeds = {"https://www.gov.si/", "https://e-uprava.gov.si/"};
  c.scope = {.allowed_host_suffixes = {"gov.si"},
             .same_site_only = true,
             .include_patterns = {"^https://"},
             .exclude_patterns = {"/calendar/", "\\?sessionid="},
             .max_depth = 0};
  c.limits = {.max_pages = 1, .max_pages_per_host = CollectionLimits::kUnlimited - 1};
  c.politeness = {.min_delay = absl::Milliseconds(250),
                  .max_delay = absl::InfiniteDuration(),
                  .delay_factor = 0,
                  .max_crawl_delay = absl::ZeroDuration(),
                  .max_connections_per_host = 4,
                  .error_backoff_base = absl::Nanoseconds(1),
                  .error_backoff_max = absl::Hours(2),
                  .jitter_fraction = 0,
                  .max_retry_after = absl::Hours(24 * 365)};
  c.store_content_types = {"text/html", "application/pdf"};
  c.store_bodies = false;
  c.fingerprints = false;
  c.revisit.options.enabled = true;
  c.revisit.options.policy = "nutch";
  c.revisit.options.min_interval = absl::Seconds(30);
  c.revisit.options.policy_options.nutch.inc_rate = 0.1;
  c.revisit.budget_visits_per_day = 432'000;
  c.focus = {.target = "external_links",
             .policy = "r3",
             .external = "host",
             .max_in_flight = 1,
             .seed = 7};
  c.record_links = true;
  c.sitemap_seeds = {"https://www.gov.si/sitemap_index.xml"};
  c.sitemap_discovery = "robots";
  return c;
}

TEST(CollectionConvertTest, EveryFieldRoundTrips) {
  const Collection c = FullCollection();
  absl::StatusOr<Collection> back = FromProto(ToProto(c), "collection");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, c);
}

TEST(CollectionConvertTest, DefaultsRoundTripAndUnsetFieldsDecodeToThem) {
  absl::StatusOr<Collection> back = FromProto(ToProto(Collection{}), "collection");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Collection{});

  // A client that sets only the name and seeds gets every documented default: unlimited pages,
  // 1 s between requests, bodies and fingerprints on, no re-visits.
  v1::Collection minimal;
  minimal.set_name("default");
  back = FromProto(minimal, "collection");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Collection{});
  EXPECT_EQ(back->limits.max_pages, CollectionLimits::kUnlimited);
  // Sitemaps are looked for unless a collection says otherwise (stored before the setting
  // existed included).
  EXPECT_EQ(back->sitemap_discovery, "robots+well-known");
  EXPECT_FALSE(back->focus.enabled());
}

// A client that only turns the focus on gets the documented policy, external rule and slots.
TEST(CollectionConvertTest, AFocusOfOnlyItsTargetTakesTheDefaults) {
  v1::Collection p;
  p.set_name("unis");
  p.mutable_focus()->set_target("external_links");
  absl::StatusOr<Collection> back = FromProto(p, "collection");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->focus, (CollectionFocus{.target = "external_links"}));
  EXPECT_FALSE(back->record_links);
}

TEST(CollectionConvertTest, LimitsCarryMaxUint64AsUnlimited) {
  for (uint64_t max :
       {uint64_t{0}, uint64_t{1}, CollectionLimits::kUnlimited - 1, CollectionLimits::kUnlimited}) {
    const CollectionLimits limits{.max_pages = max, .max_pages_per_host = max};
    EXPECT_EQ(FromProto(ToProto(limits)), limits) << max;
  }
  EXPECT_FALSE(ToProto(CollectionLimits{}).has_max_pages());
  v1::CollectionLimits explicit_max;
  explicit_max.set_max_pages(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(FromProto(explicit_max).max_pages, CollectionLimits::kUnlimited);
}

TEST(CollectionConvertTest, ScopeDistinguishesDepthZeroFromUnlimited) {
  scope::ScopeOptions scope;
  EXPECT_FALSE(FromProto(ToProto(scope)).max_depth.has_value());
  scope.max_depth = 0;
  EXPECT_EQ(FromProto(ToProto(scope)), scope);
  scope.max_depth = std::numeric_limits<uint32_t>::max();
  EXPECT_EQ(FromProto(ToProto(scope)), scope);
}

TEST(CollectionConvertTest, EveryScopeVerdictRoundTrips) {
  for (scope::Verdict v :
       {scope::Verdict::kInScope, scope::Verdict::kHostNotAllowed, scope::Verdict::kOtherSite,
        scope::Verdict::kNotIncluded, scope::Verdict::kExcluded, scope::Verdict::kTooDeep,
        scope::Verdict::kTooLong, scope::Verdict::kRepeatedSegments,
        scope::Verdict::kTooManyParams}) {
    absl::StatusOr<scope::Verdict> back = FromProto(ToProto(v), "scope_verdict");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, v);
  }
  ExpectInvalid(FromProto(v1::SCOPE_VERDICT_UNSPECIFIED, "explanations[0].scope_verdict").status(),
                "explanations[0].scope_verdict");
  ExpectInvalid(FromProto(static_cast<v1::ScopeVerdict>(10), "v").status(), "v");
}

TEST(CollectionConvertTest, RejectsMissingNameAndNegativeDurations) {
  v1::Collection p = ToProto(FullCollection());
  p.clear_name();
  ExpectInvalid(FromProto(p, "collection").status(), "collection.name");

  p = ToProto(FullCollection());
  p.mutable_politeness()->mutable_min_delay()->set_seconds(-1);
  ExpectInvalid(FromProto(p, "collection").status(), "collection.politeness.min_delay");

  p = ToProto(FullCollection());
  p.mutable_politeness()->mutable_max_retry_after()->set_seconds(315'576'000'001);
  ExpectInvalid(FromProto(p, "collection").status(), "collection.politeness.max_retry_after");

  p = ToProto(FullCollection());
  p.mutable_revisit()->mutable_options()->mutable_max_interval()->set_nanos(-1);
  ExpectInvalid(FromProto(p, "collection").status(), "collection.revisit.options.max_interval");
}

TEST(CollectionConvertTest, DecodedCollectionsStillGoThroughValidate) {
  // The wire accepts what only Validate can judge; the handlers run it after decoding.
  v1::Collection p = ToProto(FullCollection());
  p.clear_seeds();
  absl::StatusOr<Collection> c = FromProto(p, "collection");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->Validate().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::collections
