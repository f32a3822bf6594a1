#include "tools/crawlctl/output.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "services/collections/collection_keys.h"
#include "services/collections/grpc/collection_convert.h"

namespace crawler::crawlctl {
namespace {

std::string YesNo(bool value) { return value ? "yes" : "no"; }

std::string Count(uint64_t value) { return absl::StrCat(value); }

}  // namespace

std::string StateLabel(v1::CollectionState state) {
  return EnumLabel(v1::CollectionState_Name(state), "COLLECTION_STATE_");
}

std::string Table::Render() const {
  std::vector<size_t> widths;
  for (const std::vector<std::string>& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const std::vector<std::string>& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      const std::string pad(widths[i] - row[i].size(), ' ');
      const bool right = std::find(right_aligned_.begin(), right_aligned_.end(), i) !=
                         right_aligned_.end();
      line += right ? pad + row[i] : row[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

std::string FormatTimestamp(const google::protobuf::Timestamp& time) {
  if (time.seconds() == 0 && time.nanos() == 0) return "-";
  const absl::Time t = absl::FromUnixSeconds(time.seconds()) + absl::Nanoseconds(time.nanos());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string EnumLabel(const std::string& full_name, const std::string& prefix) {
  if (full_name.empty()) return "?";
  return absl::StartsWith(full_name, prefix) ? full_name.substr(prefix.size()) : full_name;
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  // Printing a well-formed message cannot fail; a failure would leave `json` empty.
  if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok()) json = "{}";
  return json + "\n";
}

std::string FormatCollectionList(const v1::ListCollectionsResponse& list) {
  if (list.collections().empty()) return "no collections\n";
  Table table({2});
  table.AddRow({"NAME", "STATE", "SEEDS", "CREATED", "UPDATED"});
  for (const v1::CollectionInfo& info : list.collections()) {
    table.AddRow({info.collection().name(), StateLabel(info.state()),
                  Count(info.seed_count()),
                  FormatTimestamp(info.create_time()), FormatTimestamp(info.update_time())});
  }
  return table.Render();
}

std::string FormatCollectionInfo(const v1::CollectionInfo& info) {
  Table table;
  table.AddRow({"collection", info.collection().name()});
  table.AddRow({"state", StateLabel(info.state())});
  table.AddRow({"created", FormatTimestamp(info.create_time())});
  table.AddRow({"updated", FormatTimestamp(info.update_time())});
  std::string out = table.Render();
  absl::StatusOr<collections::Collection> collection =
      collections::FromProto(info.collection(), "collection");
  if (!collection.ok()) {
    return out + absl::StrCat("definition: cannot be shown: ", collection.status().message(), "\n");
  }
  // The same keys, spelled as a collection file writes them; a default that reads badly as a
  // value (UINT64_MAX for "unlimited") shows as the table's text for it.
  const collections::Collection defaults;
  Table keys;
  for (const auto& key : collections::CollectionKeys().keys()) {
    if (key.name == "name") continue;
    std::string value = key.format(*collection);
    if (!key.default_text.empty() && value == key.format(defaults)) value = key.default_text;
    keys.AddRow({"  " + key.name + ":", value});
  }
  return out + "definition:\n" + keys.Render();
}

std::string FormatAddSeeds(const v1::AddSeedsResponse& response) {
  Table table({1});
  table.AddRow({"seeds", Count(response.seeds())});
  table.AddRow({"queued", Count(response.queued())});
  table.AddRow({"already seen", Count(response.already_seen())});
  table.AddRow({"rejected", Count(response.rejected())});
  std::string out = table.Render();
  if (!response.rejected_samples().empty()) {
    out += absl::StrCat("rejected (first ", response.rejected_samples_size(), "):\n");
    for (const std::string& sample : response.rejected_samples()) {
      absl::StrAppend(&out, "  ", sample, "\n");
    }
  }
  return out;
}

std::string FormatPartitions(const v1::PartitionsStatus& s) {
  Table table;
  std::string layout = absl::StrCat(s.partition_count(), " partitions");
  if (s.reshard_to() != 0) absl::StrAppend(&layout, ", moving to ", s.reshard_to());
  if (s.resharded_from() != 0) absl::StrAppend(&layout, " (from ", s.resharded_from(), ")");
  table.AddRow({"layout", absl::StrCat(layout, " (layout ", s.epoch(), ")")});
  table.AddRow({"phase", s.blocked_reason().empty()
                             ? s.phase()
                             : absl::StrCat(s.phase(), ": ", s.blocked_reason())});
  if (s.to() != 0) {
    table.AddRow({"reshard", absl::StrCat(s.from(), " -> ", s.to())});
    table.AddRow({"started", FormatTimestamp(s.started())});
    if (s.has_flipped()) table.AddRow({"flipped", FormatTimestamp(s.flipped())});
    if (s.has_finished()) table.AddRow({"finished", FormatTimestamp(s.finished())});
    table.AddRow({"moved", absl::StrCat(s.hosts_moved(), " hosts, ", s.urls_moved(), " URLs (",
                                        absl::StrFormat("%.1f", s.hosts_per_second()),
                                        " hosts/s)")});
    table.AddRow({"left", absl::StrCat(s.hosts_left(), " hosts to move, ", s.held_urls(),
                                       " URLs held")});
    table.AddRow({"held URLs delivered", absl::StrCat(s.held_delivered())});
    if (s.partitions_unreachable() > 0) {
      table.AddRow({"failed calls", absl::StrCat(s.partitions_unreachable(), " at the last pass")});
    }
  }
  return table.Render();
}

std::string FormatStats(const v1::CollectionStats& stats) {
  Table table;
  table.AddRow({"collection", stats.name()});
  table.AddRow({"as of", FormatTimestamp(stats.as_of())});
  table.AddRow({"partitions", absl::StrCat(stats.partitions_reporting(), "/",
                                           stats.partitions_total(), " reporting")});
  table.AddRow({"exhausted", YesNo(stats.exhausted())});
  std::string out = table.Render();
  Table counts({1});
  counts.AddRow({"pages", Count(stats.pages())});
  counts.AddRow({"queued", Count(stats.queued_urls())});
  counts.AddRow({"waiting", Count(stats.waiting_urls())});
  counts.AddRow({"in flight", Count(stats.in_flight_urls())});
  counts.AddRow({"seen", Count(stats.seen_urls())});
  counts.AddRow({"hosts", Count(stats.hosts())});
  counts.AddRow({"robots denied", Count(stats.robots_denied())});
  counts.AddRow({"duplicates", Count(stats.duplicates())});
  counts.AddRow({"urls exchanged", Count(stats.urls_exchanged())});
  counts.AddRow({"urls suppressed", Count(stats.urls_suppressed())});
  if (stats.pages_rendered() > 0 || stats.renders_cut() > 0) {
    counts.AddRow({"pages rendered", Count(stats.pages_rendered())});
    counts.AddRow({"renders cut", Count(stats.renders_cut())});
  }
  if (stats.focus_pulls() > 0 || !stats.focus_page_budgets().empty()) {
    counts.AddRow({"focus pulls", Count(stats.focus_pulls())});
    counts.AddRow({"focus reward", Count(stats.focus_reward())});
  }
  out += "\n" + counts.Render();
  if (!stats.focus_page_budgets().empty()) {
    std::vector<std::string> budgets;
    for (const uint64_t b : stats.focus_page_budgets()) budgets.push_back(Count(b));
    out += "focus page budgets by partition: " + absl::StrJoin(budgets, ", ") + "\n";
  }
  if (!stats.outcomes().empty()) {
    Table outcomes({1});
    for (const v1::OutcomeCount& outcome : stats.outcomes()) {
      outcomes.AddRow({"  " + EnumLabel(v1::OutcomeClass_Name(outcome.outcome()), "OUTCOME_CLASS_"),
                       Count(outcome.count())});
    }
    out += "\noutcomes:\n" + outcomes.Render();
  }
  if (stats.revisit_budget_visits_per_day() > 0 || stats.revisits_completed() > 0) {
    // The cap and the measured spend side by side (docs/recrawl.md §11).
    Table revisits({1});
    revisits.AddRow({"  budget", absl::StrFormat("%.1f/d", stats.revisit_budget_visits_per_day())});
    revisits.AddRow({"  spent", absl::StrFormat("%.1f/d", stats.revisit_spend_visits_per_day())});
    revisits.AddRow({"  made", Count(stats.revisits_completed())});
    revisits.AddRow({"  waited", Count(stats.revisits_waited())});
    out += "\nre-visits:\n" + revisits.Render();
  }
  return out;
}

namespace {

// What the newest sitemap listing the URL said of it, and how far its lastmod is trusted:
// "lastmod 2024-05-01T00:00:00Z, changefreq daily, priority 0.8; 1 of 2 visits it brought
// forward found a change".
std::string SitemapSaid(const v1::UrlRecord& r) {
  static constexpr const char* kFreq[] = {"always", "hourly", "daily", "weekly",
                                          "monthly", "yearly", "never"};
  const v1::SitemapHints& h = r.sitemap();
  std::string out = h.has_lastmod() ? absl::StrCat("lastmod ", FormatTimestamp(h.lastmod()))
                                    : std::string("no lastmod");
  if (h.changefreq() >= 1 && h.changefreq() <= 7) {
    absl::StrAppend(&out, ", changefreq ", kFreq[h.changefreq() - 1]);
  }
  if (h.has_priority_permille()) {
    absl::StrAppend(&out, ", priority ", absl::StrFormat("%.3g", h.priority_permille() / 1000.0));
  }
  if (r.lastmod_pulls() > 0) {
    absl::StrAppend(&out, "; ", r.lastmod_pulls_changed(), " of ", r.lastmod_pulls(),
                    " visits it brought forward found a change");
  }
  return out;
}

}  // namespace

std::string FormatExplain(const v1::ExplainUrlResponse& response) {
  std::string out;
  for (const v1::UrlExplanation& e : response.explanations()) {
    if (!out.empty()) out += "\n";
    Table table;
    table.AddRow({"url", e.url()});
    if (!e.error().empty()) {
      table.AddRow({"error", e.error()});
      out += table.Render();
      continue;
    }
    table.AddRow({"canonical", e.canonical_url()});
    table.AddRow({"scope", EnumLabel(v1::ScopeVerdict_Name(e.scope_verdict()), "SCOPE_VERDICT_")});
    table.AddRow({"partition", absl::StrCat(e.partition())});
    table.AddRow({"found", YesNo(e.found())});
    if (e.found()) {
      const v1::UrlRecord& r = e.record();
      table.AddRow({"state", EnumLabel(v1::UrlStatus_Name(r.status()), "URL_STATUS_")});
      table.AddRow({"depth", absl::StrCat(r.depth())});
      table.AddRow({"first seen", FormatTimestamp(r.first_seen())});
      if (!r.discovered_from().empty()) table.AddRow({"found on", r.discovered_from()});
      table.AddRow({"fetches", absl::StrCat(r.fetch_count(), " (", r.attempts(),
                                            " failed attempts since the last)")});
      std::string last = "-";
      if (r.last_outcome() != v1::OUTCOME_CLASS_UNSPECIFIED) {
        last = EnumLabel(v1::OutcomeClass_Name(r.last_outcome()), "OUTCOME_CLASS_");
        if (r.http_status() != 0) absl::StrAppend(&last, ", HTTP ", r.http_status());
      }
      table.AddRow({"last outcome", last});
      table.AddRow({"last fetch", FormatTimestamp(r.fetch_time())});
      table.AddRow({"next visit", FormatTimestamp(r.next_visit())});
      if (r.sitemap_level() > 0) {
        table.AddRow({"sitemap", absl::StrCat("level ", r.sitemap_level())});
      }
      if (r.has_sitemap()) table.AddRow({"sitemap said", SitemapSaid(r)});
    }
    if (e.has_host()) {
      const v1::HostControls& c = e.host().controls();
      std::string controls;
      if (c.has_blocked_until()) {
        absl::StrAppend(&controls, "blocked until ", FormatTimestamp(c.blocked_until()));
      }
      if (c.has_delay()) {
        absl::StrAppend(&controls, controls.empty() ? "" : ", ", "delay ",
                        absl::FormatDuration(absl::Seconds(c.delay().seconds()) +
                                             absl::Nanoseconds(c.delay().nanos())));
      }
      if (c.has_max_pages()) {
        absl::StrAppend(&controls, controls.empty() ? "" : ", ", "page limit ", c.max_pages());
      }
      if (c.dropped_urls() > 0) {
        absl::StrAppend(&controls, controls.empty() ? "" : ", ", c.dropped_urls(),
                        " URLs dropped");
      }
      table.AddRow({"host", absl::StrCat(e.host().host_key(), ": ", e.host().queued(),
                                         " queued, next due ",
                                         FormatTimestamp(e.host().next_due()))});
      table.AddRow({"host controls", controls.empty() ? "none" : controls});
    }
    out += table.Render();
  }
  return out;
}

}  // namespace crawler::crawlctl
