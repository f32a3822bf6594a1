#include "lib/html/meta_refresh.h"

#include <optional>
#include <string_view>

#include "gtest/gtest.h"

namespace crawler::html {
namespace {

struct RefreshCase {
  std::string_view content;
  bool valid;
  uint32_t delay = 0;
  std::optional<std::string_view> url = std::nullopt;
};

// HTML 4.2.5.3 "Pragma directives", Refresh state: the shared declarative refresh steps.
class Html_4_2_5_3_Refresh : public ::testing::TestWithParam<RefreshCase> {};

TEST_P(Html_4_2_5_3_Refresh, Parses) {
  const RefreshCase& c = GetParam();
  const std::optional<MetaRefresh> r = ParseMetaRefresh(c.content);
  ASSERT_EQ(r.has_value(), c.valid) << c.content;
  if (!r) return;
  EXPECT_EQ(r->delay_seconds, c.delay) << c.content;
  EXPECT_EQ(r->url, c.url) << c.content;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Html_4_2_5_3_Refresh,
    ::testing::Values(
        RefreshCase{"5", true, 5},
        RefreshCase{"  0  ", true, 0},
        RefreshCase{"0; url=/next", true, 0, "/next"},
        RefreshCase{"0;URL=/next", true, 0, "/next"},
        RefreshCase{"3, http://example.com/", true, 3, "http://example.com/"},
        RefreshCase{"3 http://example.com/", true, 3, "http://example.com/"},
        RefreshCase{"1; url = 'quoted' tail", true, 1, "quoted"},
        RefreshCase{"1;url=\"dq\"", true, 1, "dq"},
        RefreshCase{"1; url='unterminated", true, 1, "unterminated"},
        RefreshCase{"1; 'quoted-without-url'", true, 1, "quoted-without-url"},
        // "url" without '=' is part of the URL; so is anything after a bare 'u'.
        RefreshCase{"1; url /x", true, 1, "url /x"},
        RefreshCase{"1; uri=/x", true, 1, "uri=/x"},
        RefreshCase{"1; /u", true, 1, "/u"},
        // Fractions: the digits after '.' are ignored; ".5" alone is a zero delay.
        RefreshCase{"2.9; url=/x", true, 2, "/x"},
        RefreshCase{".5;url=/x", true, 0, "/x"},
        RefreshCase{"99999999999", true, UINT32_MAX},
        RefreshCase{"0; ", true, 0},
        RefreshCase{"", false},
        RefreshCase{"soon", false},
        RefreshCase{"; url=/x", false},
        RefreshCase{"5x; url=/x", false},
        RefreshCase{"-1; url=/x", false}));

}  // namespace
}  // namespace crawler::html
