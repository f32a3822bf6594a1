// What crawlctl prints: aligned tables and human times for people, and protobuf's JSON of each
// reply for scripts (--json). Every function returns the text instead of writing it, so the
// formats are unit-tested; the text of the tables may change between versions, the JSON only
// with the proto (admin.proto).
//
// Times are RFC 3339 in UTC to the second ("2026-11-26T19:30:00Z"); an unset time prints as
// "-"; durations in absl's form ("1h30m", "250ms"). Enum values print without their type
// prefix ("PAUSED", "IN_SCOPE").
//
// Thread-safety: pure functions.
#ifndef CRAWLER_TOOLS_CRAWLCTL_OUTPUT_H_
#define CRAWLER_TOOLS_CRAWLCTL_OUTPUT_H_

#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>

#include <cstddef>
#include <string>
#include <vector>

#include "crawler/v1/admin.pb.h"

namespace crawler::crawlctl {

// Rows of cells printed in columns two spaces apart, each as wide as its widest cell; the last
// column is not padded. Columns listed in `right_aligned` (numbers) are padded on the left.
class Table {
 public:
  explicit Table(std::vector<size_t> right_aligned = {}) : right_aligned_(std::move(right_aligned)) {}
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // One line per row, each ending in '\n'; trailing spaces trimmed.
  std::string Render() const;

 private:
  std::vector<size_t> right_aligned_;
  std::vector<std::vector<std::string>> rows_;
};

// "2026-11-26T19:30:00Z"; "-" for an unset (all-zero) timestamp.
std::string FormatTimestamp(const google::protobuf::Timestamp& time);
// The enum value's name without the type's prefix: "COLLECTION_STATE_PAUSED" -> "PAUSED".
std::string EnumLabel(const std::string& full_name, const std::string& prefix);
// A collection state's label: "ACTIVE", "PAUSED", "FINISHED".
std::string StateLabel(v1::CollectionState state);

// One line of JSON (protobuf's JSON mapping with the .proto field names, fields at their
// default values included, so scripts find every field), ending in '\n'.
std::string ToJson(const google::protobuf::Message& message);

// `collections list`: NAME, STATE, SEEDS, CREATED, UPDATED.
std::string FormatCollectionList(const v1::ListCollectionsResponse& list);
// `collections get` and the replies of create and update: state and times, then the
// definition as its YAML keys (CollectionKeys()) with their values.
std::string FormatCollectionInfo(const v1::CollectionInfo& info);
// `seeds add`: counts, then the rejected samples.
std::string FormatAddSeeds(const v1::AddSeedsResponse& response);
// `stats`: the counters of CollectionStats, then the outcomes by class.
std::string FormatStats(const v1::CollectionStats& stats);
// Admin.GetPartitions: the layout and where a change of the partition count stands.
std::string FormatPartitions(const v1::PartitionsStatus& status);
// `explain`: one block per URL, blank lines between.
std::string FormatExplain(const v1::ExplainUrlResponse& response);

}  // namespace crawler::crawlctl

#endif  // CRAWLER_TOOLS_CRAWLCTL_OUTPUT_H_
