#include "lib/sitemap/w3c_datetime.h"

#include <cstddef>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "lib/encoding/absl_view.h"

namespace crawler::sitemap {
namespace {

// The longest quoted input in an error message; lastmod values come from untrusted documents.
constexpr size_t kMaxQuotedBytes = 40;

absl::Status NotADatetime(std::string_view text, std::string_view why) {
  const bool cut = text.size() > kMaxQuotedBytes;
  return absl::InvalidArgumentError(
      absl::StrCat("not a W3C Datetime (", encoding::AsAbsl(why), "): \"",
                   encoding::AsAbsl(text.substr(0, kMaxQuotedBytes)), cut ? "..." : "", "\""));
}

// A cursor over the text; every Take* consumes only on success.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  bool TakeChar(char c) {
    if (AtEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  // Exactly `count` ASCII digits.
  bool TakeDigits(int count, int* value) {
    if (text_.size() - pos_ < static_cast<size_t>(count)) return false;
    int result = 0;
    for (int i = 0; i < count; ++i) {
      const char c = text_[pos_ + i];
      if (c < '0' || c > '9') return false;
      result = result * 10 + (c - '0');
    }
    pos_ += count;
    *value = result;
    return true;
  }

  // One or more digits of a decimal fraction; digits past nanoseconds are consumed and ignored.
  bool TakeFraction(absl::Duration* fraction) {
    int64_t nanos = 0;
    int64_t scale = 100'000'000;
    const size_t start = pos_;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
      nanos += (Peek() - '0') * scale;
      scale /= 10;
      ++pos_;
    }
    *fraction = absl::Nanoseconds(nanos);
    return pos_ > start;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

int DaysInMonth(int64_t year, int month) {
  // absl's civil types normalise: the day before the first of next month is the last of this.
  const absl::CivilDay last = absl::CivilDay(year, month + 1, 1) - 1;
  return last.day();
}

}  // namespace

absl::StatusOr<absl::Time> ParseW3cDatetime(std::string_view text) {
  Cursor in(text);
  int year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0;
  absl::Duration fraction = absl::ZeroDuration();
  int offset_minutes = 0;

  if (!in.TakeDigits(4, &year)) return NotADatetime(text, "expected YYYY");
  if (!in.AtEnd()) {
    if (!in.TakeChar('-') || !in.TakeDigits(2, &month)) {
      return NotADatetime(text, "expected -MM");
    }
    if (!in.AtEnd()) {
      if (!in.TakeChar('-') || !in.TakeDigits(2, &day)) {
        return NotADatetime(text, "expected -DD");
      }
    }
  }
  if (month < 1 || month > 12) return NotADatetime(text, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month)) return NotADatetime(text, "day out of range");

  if (!in.AtEnd()) {
    if (!in.TakeChar('T') && !in.TakeChar('t') && !in.TakeChar(' ')) {
      return NotADatetime(text, "expected T");
    }
    if (!in.TakeDigits(2, &hour) || !in.TakeChar(':') || !in.TakeDigits(2, &minute)) {
      return NotADatetime(text, "expected hh:mm");
    }
    if (in.TakeChar(':')) {
      if (!in.TakeDigits(2, &second)) return NotADatetime(text, "expected ss");
      if (in.TakeChar('.') && !in.TakeFraction(&fraction)) {
        return NotADatetime(text, "expected fraction digits");
      }
    }
    if (hour > 23 || minute > 59 || second > 60) {
      return NotADatetime(text, "time out of range");
    }
    // TZD. A missing one is a deviation (see the header): it means UTC.
    if (in.TakeChar('Z') || in.TakeChar('z')) {
      offset_minutes = 0;
    } else if (in.Peek() == '+' || in.Peek() == '-') {
      const int sign = in.Peek() == '-' ? -1 : 1;
      in.TakeChar(in.Peek());
      int tz_hour = 0, tz_minute = 0;
      if (!in.TakeDigits(2, &tz_hour)) return NotADatetime(text, "expected TZD hh");
      in.TakeChar(':');  // optional: "+0100" is a deviation we accept
      if (!in.TakeDigits(2, &tz_minute)) return NotADatetime(text, "expected TZD mm");
      if (tz_hour > 23 || tz_minute > 59) return NotADatetime(text, "TZD out of range");
      offset_minutes = sign * (tz_hour * 60 + tz_minute);
    }
  }
  if (!in.AtEnd()) return NotADatetime(text, "trailing characters");

  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  return absl::FromCivil(civil, absl::UTCTimeZone()) + fraction - absl::Minutes(offset_minutes);
}

std::string FormatRfc3339Utc(absl::Time time) {
  // %E*S prints fractional seconds only when there are any.
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", time, absl::UTCTimeZone());
}

}  // namespace crawler::sitemap
