// Tests for ParseW3cDatetime / FormatRfc3339Utc, named after the W3C Datetime note
// (https://www.w3.org/TR/NOTE-datetime): its profiles, its TZD, and our documented deviations.
#include "lib/sitemap/w3c_datetime.h"

#include <string>

#include "gtest/gtest.h"

namespace crawler::sitemap {
namespace {

struct Case {
  std::string input;
  std::string rfc3339;  // expected FormatRfc3339Utc of the parsed time
};

void ExpectParses(const Case& c) {
  absl::StatusOr<absl::Time> time = ParseW3cDatetime(c.input);
  ASSERT_TRUE(time.ok()) << c.input << ": " << time.status();
  EXPECT_EQ(FormatRfc3339Utc(*time), c.rfc3339) << c.input;
}

TEST(W3cDatetime_Profiles, AllSixFormsOfTheNote) {
  const Case cases[] = {
      // "Year: YYYY (eg 1997)": the start of the year, UTC.
      {"1997", "1997-01-01T00:00:00Z"},
      // "Year and month: YYYY-MM (eg 1997-07)"
      {"1997-07", "1997-07-01T00:00:00Z"},
      // "Complete date: YYYY-MM-DD (eg 1997-07-16)"
      {"1997-07-16", "1997-07-16T00:00:00Z"},
      // "Complete date plus hours and minutes: YYYY-MM-DDThh:mmTZD"
      {"1997-07-16T19:20+01:00", "1997-07-16T18:20:00Z"},
      // "Complete date plus hours, minutes and seconds: YYYY-MM-DDThh:mm:ssTZD"
      {"1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30Z"},
      // "Complete date plus hours, minutes, seconds and a decimal fraction of a second"
      {"1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.45Z"},
  };
  for (const Case& c : cases) ExpectParses(c);
}

TEST(W3cDatetime_Tzd, ZuluAndOffsetsBothWays) {
  const Case cases[] = {
      {"1994-11-05T08:15:30-05:00", "1994-11-05T13:15:30Z"},  // the note's own example
      {"1994-11-05T13:15:30Z", "1994-11-05T13:15:30Z"},       // ... and its UTC equivalent
      {"2024-01-01T00:30+02:00", "2023-12-31T22:30:00Z"},     // offset crosses a year
      {"2024-02-29T23:59:59-00:30", "2024-03-01T00:29:59Z"},  // leap day, odd offset
      {"2024-01-31T10:00:00.000000001Z", "2024-01-31T10:00:00.000000001Z"},
      {"2024-01-31T10:00:00.1234567891234Z", "2024-01-31T10:00:00.123456789Z"},  // > ns dropped
  };
  for (const Case& c : cases) ExpectParses(c);
}

TEST(W3cDatetime_Deviations, CommonNearMissesAreAccepted) {
  const Case cases[] = {
      {"2024-01-31T10:00:00", "2024-01-31T10:00:00Z"},        // no TZD: UTC
      {"2024-01-31T10:00", "2024-01-31T10:00:00Z"},           // no TZD, no seconds
      {"2024-01-31 10:00:00+01:00", "2024-01-31T09:00:00Z"},  // space for T
      {"2024-01-31t10:00:00z", "2024-01-31T10:00:00Z"},       // lower case
      {"2024-01-31T10:00:00+0100", "2024-01-31T09:00:00Z"},   // TZD without colon
      {"2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"},       // a leap second rolls over
  };
  for (const Case& c : cases) ExpectParses(c);
}

TEST(W3cDatetime_Invalid, RejectedWithInvalidArgument) {
  const std::string inputs[] = {
      "",
      "97",                         // two-digit year
      "1997-7-16",                  // one-digit month
      "1997-13",                    // month out of range
      "1997-00-10",                 // month zero
      "1997-02-29",                 // not a leap year
      "2024-04-31",                 // April has 30 days
      "1997-07-16T",                // T without time
      "1997-07-16T19",              // hours without minutes
      "1997-07-16T24:00Z",          // hour out of range
      "1997-07-16T19:60Z",          // minute out of range
      "1997-07-16T19:20:61Z",       // second out of range
      "1997-07-16T19:20:30.Z",      // fraction without digits
      "1997-07-16T19:20:30+1:00",   // one-digit TZD hour
      "1997-07-16T19:20:30+01:",    // TZD minutes missing
      "1997-07-16T19:20:30+24:00",  // TZD out of range
      "1997-07-16T19:20:30Z ",      // trailing space
      " 1997-07-16",                // leading space
      "1997-07-16Z",                // TZD without time
      "July 16, 1997",              // not the format at all
      "1997-07-16T19:20:30ZZ",      // trailing text
  };
  for (const std::string& input : inputs) {
    absl::StatusOr<absl::Time> time = ParseW3cDatetime(input);
    EXPECT_EQ(time.status().code(), absl::StatusCode::kInvalidArgument) << '"' << input << '"';
  }
}

TEST(W3cDatetime_Invalid, MessageQuotesAShortenedInput) {
  const std::string junk(1000, 'x');
  absl::StatusOr<absl::Time> time = ParseW3cDatetime(junk);
  ASSERT_FALSE(time.ok());
  EXPECT_LT(time.status().message().size(), 200u);
  EXPECT_NE(time.status().message().find("xxxx..."), absl::string_view::npos);
}

TEST(Rfc3339Format, UtcWithZAndFractionOnlyWhenPresent) {
  EXPECT_EQ(FormatRfc3339Utc(absl::FromUnixSeconds(0)), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339Utc(absl::FromUnixMillis(1706695200250)), "2024-01-31T10:00:00.25Z");
}

}  // namespace
}  // namespace crawler::sitemap
