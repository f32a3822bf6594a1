#include "lib/recrawl/visit_history.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/varint.h"

namespace crawler::recrawl {
namespace {

constexpr uint8_t kFlagHasLastVisit = 0x01;
constexpr uint64_t kMaxUint32 = std::numeric_limits<uint32_t>::max();

// Reads bytes front to back; every failure is data loss in a record we wrote ourselves.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  absl::StatusOr<uint8_t> Byte(const char* what) {
    if (pos_ >= bytes_.size()) return Truncated(what);
    return static_cast<uint8_t>(bytes_[pos_++]);
  }

  absl::StatusOr<uint64_t> Varint(const char* what) {
    const encoding::DecodedVarint varint = encoding::DecodeVarint64(bytes_.substr(pos_));
    switch (varint.status) {
      case encoding::VarintStatus::kOk:
        pos_ += varint.length;
        return varint.value;
      case encoding::VarintStatus::kTruncated:
        pos_ = bytes_.size();
        return Truncated(what);
      case encoding::VarintStatus::kOverflow:
        return absl::DataLossError(absl::StrCat("visit history: varint overflow in ", what));
      case encoding::VarintStatus::kOverlong:
        // Rejecting overlong forms keeps the encoding of a history unique.
        return absl::DataLossError(absl::StrCat("visit history: overlong varint in ", what));
    }
    return absl::DataLossError(absl::StrCat("visit history: bad varint in ", what));
  }

  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  absl::Status Truncated(const char* what) const {
    return absl::DataLossError(absl::StrCat("visit history: truncated at byte ", pos_, " (", what,
                                            ")"));
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

VisitHistory::VisitHistory(int capacity) {
  assert(capacity >= 1 && capacity <= kMaxCapacity);
  ring_.resize(static_cast<size_t>(std::clamp(capacity, 1, kMaxCapacity)));
}

void VisitHistory::Record(absl::Time visit_time, bool changed,
                          std::optional<absl::Time> last_modified) {
  const int64_t now = absl::ToUnixSeconds(visit_time);
  if (!has_last_visit_) {
    has_last_visit_ = true;
    last_visit_unix_seconds_ = now;
    return;
  }
  const int64_t interval = std::max<int64_t>(now - last_visit_unix_seconds_, 1);
  Visit visit;
  visit.interval_seconds = static_cast<uint32_t>(std::min<int64_t>(interval, kMaxUint32));
  visit.changed = changed;
  if (last_modified.has_value()) {
    const int64_t since = now - absl::ToUnixSeconds(*last_modified);
    visit.has_last_modified = true;
    visit.since_last_modified_seconds =
        static_cast<uint32_t>(std::clamp<int64_t>(since, 0, kMaxUint32));
  }
  // A clock that stepped back must not move the anchor backwards with it.
  last_visit_unix_seconds_ = std::max(now, last_visit_unix_seconds_ + 1);
  Append(visit);
}

void VisitHistory::Append(Visit visit) {
  visit.interval_seconds = std::max<uint32_t>(visit.interval_seconds, 1);
  if (!visit.has_last_modified) visit.since_last_modified_seconds = 0;
  const int cap = capacity();
  if (count_ < cap) {
    ring_[(head_ + count_) % cap] = visit;
    ++count_;
  } else {
    ring_[head_] = visit;
    head_ = (head_ + 1) % cap;
  }
}

std::optional<absl::Time> VisitHistory::last_visit() const {
  if (!has_last_visit_) return std::nullopt;
  return absl::FromUnixSeconds(last_visit_unix_seconds_);
}

double VisitHistory::total_interval_days() const {
  double seconds = 0;
  for (int i = 0; i < count_; ++i) seconds += (*this)[i].interval_seconds;
  return seconds / kSecondsPerDay;
}

int VisitHistory::changed_count() const {
  int changed = 0;
  for (int i = 0; i < count_; ++i) changed += (*this)[i].changed ? 1 : 0;
  return changed;
}

std::string VisitHistory::Encode() const {
  std::string out;
  out.reserve(4 + 10 + static_cast<size_t>(count_) * 8);
  out.push_back(static_cast<char>(kFormatVersion));
  out.push_back(static_cast<char>(capacity()));
  out.push_back(static_cast<char>(count_));
  out.push_back(static_cast<char>(has_last_visit_ ? kFlagHasLastVisit : 0));
  if (has_last_visit_) {
    encoding::AppendVarint64(encoding::ZigZagEncode(last_visit_unix_seconds_), out);
  }
  for (int i = 0; i < count_; ++i) {
    const Visit& v = (*this)[i];
    encoding::AppendVarint64((static_cast<uint64_t>(v.interval_seconds) << 2) |
                                 (v.has_last_modified ? 2u : 0u) | (v.changed ? 1u : 0u),
                             out);
    if (v.has_last_modified) encoding::AppendVarint64(v.since_last_modified_seconds, out);
  }
  return out;
}

absl::StatusOr<VisitHistory> VisitHistory::Decode(std::string_view bytes) {
  Reader in(bytes);
  absl::StatusOr<uint8_t> version = in.Byte("version");
  if (!version.ok()) return version.status();
  if (*version != kFormatVersion) {
    return absl::UnimplementedError(
        absl::StrCat("visit history: unsupported format version ", *version));
  }
  absl::StatusOr<uint8_t> capacity = in.Byte("capacity");
  if (!capacity.ok()) return capacity.status();
  if (*capacity < 1 || *capacity > kMaxCapacity) {
    return absl::DataLossError(absl::StrCat("visit history: capacity ", *capacity,
                                            " outside [1, ", kMaxCapacity, "]"));
  }
  absl::StatusOr<uint8_t> count = in.Byte("count");
  if (!count.ok()) return count.status();
  if (*count > *capacity) {
    return absl::DataLossError(
        absl::StrCat("visit history: count ", *count, " exceeds capacity ", *capacity));
  }
  absl::StatusOr<uint8_t> flags = in.Byte("flags");
  if (!flags.ok()) return flags.status();
  if ((*flags & ~kFlagHasLastVisit) != 0) {
    return absl::DataLossError(absl::StrCat("visit history: unknown flags ", *flags));
  }
  VisitHistory history(*capacity);
  if ((*flags & kFlagHasLastVisit) != 0) {
    absl::StatusOr<uint64_t> last = in.Varint("last visit");
    if (!last.ok()) return last.status();
    history.has_last_visit_ = true;
    history.last_visit_unix_seconds_ = encoding::ZigZagDecode(*last);
  } else if (*count > 0) {
    return absl::DataLossError("visit history: visits without a last visit time");
  }
  for (int i = 0; i < *count; ++i) {
    absl::StatusOr<uint64_t> head = in.Varint("visit");
    if (!head.ok()) return head.status();
    Visit visit;
    const uint64_t interval = *head >> 2;
    if (interval < 1 || interval > kMaxUint32) {
      return absl::DataLossError(
          absl::StrCat("visit history: visit ", i, " has interval ", interval, " s"));
    }
    visit.interval_seconds = static_cast<uint32_t>(interval);
    visit.changed = (*head & 1) != 0;
    visit.has_last_modified = (*head & 2) != 0;
    if (visit.has_last_modified) {
      absl::StatusOr<uint64_t> since = in.Varint("last modified");
      if (!since.ok()) return since.status();
      if (*since > kMaxUint32) {
        return absl::DataLossError(
            absl::StrCat("visit history: visit ", i, " Last-Modified age out of range"));
      }
      visit.since_last_modified_seconds = static_cast<uint32_t>(*since);
    }
    history.Append(visit);
  }
  if (!in.AtEnd()) return absl::DataLossError("visit history: trailing bytes");
  return history;
}

bool operator==(const VisitHistory& a, const VisitHistory& b) {
  if (a.capacity() != b.capacity() || a.size() != b.size() ||
      a.has_last_visit_ != b.has_last_visit_ ||
      (a.has_last_visit_ && a.last_visit_unix_seconds_ != b.last_visit_unix_seconds_)) {
    return false;
  }
  for (int i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

}  // namespace crawler::recrawl
