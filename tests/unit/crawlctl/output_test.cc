// crawlctl's output: aligned tables, RFC 3339 times, enum labels, the JSON of replies, and the
// tables of each command.
#include "tools/crawlctl/output.h"

#include <google/protobuf/util/json_util.h>

#include <string>

#include "gtest/gtest.h"

namespace crawler::crawlctl {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TableTest, AlignsColumnsAndRightAlignsNumbers) {
  Table table({1});
  table.AddRow({"NAME", "PAGES", "STATE"});
  table.AddRow({"gov-si", "12345", "ACTIVE"});
  table.AddRow({"a", "7", ""});
  EXPECT_EQ(table.Render(),
            "NAME    PAGES  STATE\n"
            "gov-si  12345  ACTIVE\n"
            "a           7\n");
}

TEST(FormatTimestampTest, Rfc3339InUtcAndDashForUnset) {
  google::protobuf::Timestamp t;
  EXPECT_EQ(FormatTimestamp(t), "-");
  t.set_seconds(1'795'721'400);  // 2026-11-26T19:30:00Z
  t.set_nanos(500);
  EXPECT_EQ(FormatTimestamp(t), "2026-11-26T19:30:00Z");
}

TEST(EnumLabelTest, StripsTheTypePrefix) {
  EXPECT_EQ(EnumLabel("COLLECTION_STATE_PAUSED", "COLLECTION_STATE_"), "PAUSED");
  EXPECT_EQ(EnumLabel("OTHER", "COLLECTION_STATE_"), "OTHER");
  EXPECT_EQ(EnumLabel("", "X_"), "?");
}

TEST(ToJsonTest, OneLineWithProtoNamesAndDefaultsThatParsesBack) {
  v1::AddSeedsResponse response;
  response.set_seeds(3);
  response.set_queued(3);
  const std::string json = ToJson(response);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.back(), '\n');
  EXPECT_EQ(json.find('\n'), json.size() - 1);
  EXPECT_TRUE(Contains(json, "\"already_seen\"")) << json;
  v1::AddSeedsResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok());
  EXPECT_EQ(parsed.seeds(), 3u);
}

TEST(FormatCollectionListTest, OneRowPerCollection) {
  v1::ListCollectionsResponse list;
  EXPECT_EQ(FormatCollectionList(list), "no collections\n");
  v1::CollectionInfo* info = list.add_collections();
  info->mutable_collection()->set_name("gov-si");
  info->set_seed_count(1);  // a list carries the count, not the seeds
  info->set_state(v1::COLLECTION_STATE_PAUSED);
  info->mutable_create_time()->set_seconds(1'795'721'400);
  const std::string text = FormatCollectionList(list);
  EXPECT_TRUE(Contains(text, "NAME    STATE   SEEDS  CREATED")) << text;
  EXPECT_TRUE(Contains(text, "gov-si  PAUSED      1  2026-11-26T19:30:00Z  -")) << text;
}

TEST(FormatCollectionInfoTest, StateTimesAndTheDefinitionAsYamlKeys) {
  v1::CollectionInfo info;
  info.mutable_collection()->set_name("gov-si");
  info.mutable_collection()->add_seeds("https://www.gov.si/");
  info.mutable_collection()->mutable_scope()->set_max_depth(4);
  info.mutable_collection()->mutable_politeness()->mutable_min_delay()->set_seconds(3);
  info.set_state(v1::COLLECTION_STATE_ACTIVE);
  const std::string text = FormatCollectionInfo(info);
  EXPECT_TRUE(Contains(text, "state       ACTIVE")) << text;
  EXPECT_TRUE(Contains(text, "definition:")) << text;
  EXPECT_TRUE(Contains(text, "max_depth:")) << text;
  EXPECT_TRUE(Contains(text, "3s")) << text;
  EXPECT_TRUE(Contains(text, "https://www.gov.si/")) << text;
}

TEST(FormatAddSeedsTest, CountsAndSamples) {
  v1::AddSeedsResponse response;
  response.set_seeds(10);
  response.set_queued(7);
  response.set_already_seen(2);
  response.set_rejected(1);
  response.add_rejected_samples("ftp://x/: not http(s)");
  EXPECT_EQ(FormatAddSeeds(response),
            "seeds         10\n"
            "queued         7\n"
            "already seen   2\n"
            "rejected       1\n"
            "rejected (first 1):\n"
            "  ftp://x/: not http(s)\n");
}

TEST(FormatStatsTest, EveryCounterAndTheOutcomes) {
  v1::CollectionStats stats;
  stats.set_name("gov-si");
  stats.set_partitions_reporting(3);
  stats.set_partitions_total(4);
  stats.set_pages(1200);
  stats.set_queued_urls(55);
  stats.set_robots_denied(9);
  stats.set_urls_suppressed(77);
  v1::OutcomeCount* outcome = stats.add_outcomes();
  outcome->set_outcome(v1::OUTCOME_CLASS_NETWORK_ERROR);
  outcome->set_count(12);
  const std::string text = FormatStats(stats);
  EXPECT_TRUE(Contains(text, "partitions  3/4 reporting")) << text;
  EXPECT_TRUE(Contains(text, "exhausted   no")) << text;
  EXPECT_TRUE(Contains(text, "pages            1200")) << text;
  EXPECT_TRUE(Contains(text, "queued             55")) << text;
  EXPECT_TRUE(Contains(text, "robots denied       9")) << text;
  EXPECT_TRUE(Contains(text, "urls suppressed    77")) << text;
  EXPECT_TRUE(Contains(text, "NETWORK_ERROR  12")) << text;
  EXPECT_FALSE(Contains(text, "re-visits")) << text;  // not a re-visiting collection
  EXPECT_FALSE(Contains(text, "rendered")) << text;   // nor one that renders
  stats.set_pages_rendered(31);
  stats.set_renders_cut(2);
  const std::string rendering = FormatStats(stats);
  EXPECT_TRUE(Contains(rendering, "pages rendered     31\nrenders cut         2\n")) << rendering;
  stats.set_revisit_budget_visits_per_day(864000);
  stats.set_revisit_spend_visits_per_day(851234.5);
  stats.set_revisits_completed(4321);
  stats.set_revisits_waited(17);
  const std::string revisiting = FormatStats(stats);
  EXPECT_TRUE(Contains(revisiting, "re-visits:\n  budget  864000.0/d\n  spent   851234.5/d\n"
                                   "  made          4321\n  waited          17\n"))
      << revisiting;
}

TEST(FormatExplainTest, FoundNotFoundAndUnparsable) {
  v1::ExplainUrlResponse response;
  v1::UrlExplanation* found = response.add_explanations();
  found->set_url("HTTP://WWW.Gov.si/a");
  found->set_canonical_url("http://www.gov.si/a");
  found->set_scope_verdict(v1::SCOPE_VERDICT_IN_SCOPE);
  found->set_partition(2);
  found->set_found(true);
  found->mutable_record()->set_status(v1::URL_STATUS_WAITING);
  found->mutable_record()->set_last_outcome(v1::OUTCOME_CLASS_HTTP_ERROR);
  found->mutable_record()->set_http_status(503);
  found->mutable_record()->mutable_next_visit()->set_seconds(1'795'721'400);
  v1::UrlExplanation* missing = response.add_explanations();
  missing->set_url("https://other.example/");
  missing->set_canonical_url("https://other.example/");
  missing->set_scope_verdict(v1::SCOPE_VERDICT_HOST_NOT_ALLOWED);
  v1::UrlExplanation* bad = response.add_explanations();
  bad->set_url("::");
  bad->set_error("no scheme");
  const std::string text = FormatExplain(response);
  EXPECT_TRUE(Contains(text, "canonical     http://www.gov.si/a\n")) << text;
  EXPECT_TRUE(Contains(text, "scope         IN_SCOPE\n")) << text;
  EXPECT_TRUE(Contains(text, "partition     2\n")) << text;
  EXPECT_TRUE(Contains(text, "state         WAITING\n")) << text;
  EXPECT_TRUE(Contains(text, "last outcome  HTTP_ERROR, HTTP 503\n")) << text;
  EXPECT_TRUE(Contains(text, "next visit    2026-11-26T19:30:00Z\n")) << text;
  EXPECT_TRUE(Contains(text, "scope      HOST_NOT_ALLOWED\n")) << text;
  EXPECT_TRUE(Contains(text, "found      no\n")) << text;
  EXPECT_TRUE(Contains(text, "url    ::\nerror  no scheme\n")) << text;
}

}  // namespace
}  // namespace crawler::crawlctl
