// RFC 9110 §5.6.7: the three HTTP-date forms, all meaning the same instant.
#include "lib/http/http_date.h"

#include <gtest/gtest.h>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace crawler::http {
namespace {

const absl::Time kExample =
    absl::FromCivil(absl::CivilSecond(1994, 11, 6, 8, 49, 37), absl::UTCTimeZone());

TEST(ParseHttpDateTest, ImfFixdate) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), kExample);
  EXPECT_EQ(ParseHttpDate("  Sun, 06 Nov 1994 08:49:37 GMT \t"), kExample);
}

TEST(ParseHttpDateTest, ObsoleteRfc850) {
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), kExample);
}

TEST(ParseHttpDateTest, ObsoleteAsctime) {
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994"), kExample);
}

TEST(ParseHttpDateTest, RejectsOtherText) {
  EXPECT_EQ(ParseHttpDate(""), std::nullopt);
  EXPECT_EQ(ParseHttpDate("120"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("1994-11-06T08:49:37Z"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 PST"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 31 Nov 1994 08:49:37 GMT"), std::nullopt);
}

}  // namespace
}  // namespace crawler::http
