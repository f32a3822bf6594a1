// The storage and RPC forms of RatePrior and FleetEvidence (rate_prior.h); kept apart from the
// estimator so the two change independently.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/varint.h"
#include "lib/recrawl/internal/wire.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl {
namespace {

constexpr uint8_t kEvidenceFormatVersion = 2;
// A cell's smallest encoding: a one-byte key and three numbers.
constexpr size_t kMinCellBytes = 1 + 3 * sizeof(double);

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(absl::StrCat("fleet evidence: ", std::string(what)));
}

}  // namespace

absl::StatusOr<RatePrior> RatePrior::FromWeights(absl::Span<const double> weights) {
  if (weights.size() != static_cast<size_t>(kPoints)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rate prior: ", weights.size(), " weights, expected ", kPoints));
  }
  std::array<double, kPoints> copy{};
  double total = 0;
  for (int k = 0; k < kPoints; ++k) {
    if (!std::isfinite(weights[k]) || weights[k] < 0) {
      return absl::InvalidArgumentError("rate prior: a weight is negative or not finite");
    }
    copy[k] = weights[k];
    total += weights[k];
  }
  if (!(total > 0) || !std::isfinite(total)) {
    return absl::InvalidArgumentError("rate prior: the weights do not sum to a positive number");
  }
  return RatePrior(copy);
}

std::vector<FleetEvidence::CellEntry> FleetEvidence::cells() const {
  std::vector<CellEntry> out;
  out.reserve(cells_.size());
  for (const auto& [key, cell] : cells_) {
    out.push_back(CellEntry{.key = key,
                            .pages = cell.pages,
                            .committed_pages = cell.committed_pages,
                            .committed_visits_per_day = cell.committed_visits_per_day});
  }
  std::sort(out.begin(), out.end(),
            [](const CellEntry& a, const CellEntry& b) { return a.key < b.key; });
  return out;
}

std::string FleetEvidence::Encode() const {
  const std::vector<CellEntry> entries = cells();
  std::string out;
  out.reserve(1 + sizeof(double) + 10 + entries.size() * (8 + 3 * sizeof(double)));
  out.push_back(static_cast<char>(kEvidenceFormatVersion));
  internal::PutNumber(page_count_, out);
  encoding::AppendVarint64(entries.size(), out);
  for (const CellEntry& entry : entries) {
    encoding::AppendVarint64(entry.key, out);
    internal::PutNumber(entry.pages, out);
    internal::PutNumber(entry.committed_pages, out);
    internal::PutNumber(entry.committed_visits_per_day, out);
  }
  return out;
}

absl::StatusOr<FleetEvidence> FleetEvidence::Decode(std::string_view bytes) {
  if (bytes.empty()) return Corrupt("empty");
  if (static_cast<uint8_t>(bytes.front()) != kEvidenceFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("fleet evidence: unknown format version ",
                                                 static_cast<int>(bytes.front())));
  }
  internal::WireReader reader(bytes.substr(1));
  FleetEvidence evidence;
  uint64_t count = 0;
  // The count is checked against the bytes left before anything is reserved for it.
  if (!reader.Number(evidence.page_count_) || !reader.Varint(count) ||
      count > bytes.size() / kMinCellBytes) {
    return Corrupt("bad header");
  }
  evidence.cells_.reserve(static_cast<size_t>(count));
  uint64_t previous_key = 0;
  for (uint64_t n = 0; n < count; ++n) {
    uint64_t key = 0;
    if (!reader.Varint(key) || (n > 0 && key <= previous_key)) return Corrupt("bad cell key");
    previous_key = key;
    if (!ValidKey(key)) return Corrupt("change count or bin out of range");
    Cell cell;
    if (!reader.Number(cell.pages) || !reader.Number(cell.committed_pages) ||
        !reader.Number(cell.committed_visits_per_day) || !(cell.pages > 0) ||
        cell.committed_pages > cell.pages * (1 + 1e-9)) {
      return Corrupt("bad cell");
    }
    evidence.cells_.emplace(key, cell);
  }
  if (!reader.done()) return Corrupt("trailing bytes");
  return evidence;
}

bool operator==(const FleetEvidence& a, const FleetEvidence& b) {
  return a.page_count_ == b.page_count_ && a.cells() == b.cells();
}

}  // namespace crawler::recrawl
