#include "lib/html/robots_meta.h"

#include <string_view>

#include "gtest/gtest.h"

namespace crawler::html {
namespace {

struct RobotsCase {
  std::string_view content;
  bool noindex;
  bool nofollow;
};

// <meta name="robots">: comma-separated, case-insensitive directives; "none" = both.
class RobotsMetaTag : public ::testing::TestWithParam<RobotsCase> {};

TEST_P(RobotsMetaTag, Parses) {
  const RobotsCase& c = GetParam();
  const RobotsMeta m = ParseRobotsMeta(c.content);
  EXPECT_EQ(m.noindex, c.noindex) << c.content;
  EXPECT_EQ(m.nofollow, c.nofollow) << c.content;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RobotsMetaTag,
    ::testing::Values(RobotsCase{"", false, false}, RobotsCase{"index, follow", false, false},
                      RobotsCase{"noindex", true, false}, RobotsCase{"NOFOLLOW", false, true},
                      RobotsCase{"noindex,nofollow", true, true},
                      RobotsCase{" noindex , nofollow ", true, true},
                      RobotsCase{"noindex nofollow", true, true}, RobotsCase{"None", true, true},
                      RobotsCase{"noarchive, max-snippet:-1", false, false},
                      RobotsCase{"nofollowing, xnoindex", false, false},
                      RobotsCase{"no-index", false, false}));

TEST(RobotsMetaTag, CombinesElements) {
  RobotsMeta m = ParseRobotsMeta("noindex");
  m |= ParseRobotsMeta("nofollow");
  EXPECT_EQ(m, (RobotsMeta{true, true}));
}

}  // namespace
}  // namespace crawler::html
