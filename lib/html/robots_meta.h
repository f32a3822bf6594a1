// RobotsMeta: the directives of a <meta name="robots" content="..."> element that a crawler
// acts on. Content is a comma-separated list of case-insensitive tokens (whitespace around
// them ignored; space-separated lists are accepted too, as search engines do). "none" means
// noindex and nofollow; unknown tokens (noarchive, max-snippet:10, ...) are ignored.
//
// Thread-safety: plain value, pure function.
#ifndef CRAWLER_LIB_HTML_ROBOTS_META_H_
#define CRAWLER_LIB_HTML_ROBOTS_META_H_

#include <string_view>

namespace crawler::html {

struct RobotsMeta {
  bool noindex = false;   // do not index this page
  bool nofollow = false;  // do not follow its links

  RobotsMeta& operator|=(const RobotsMeta& other) {
    noindex = noindex || other.noindex;
    nofollow = nofollow || other.nofollow;
    return *this;
  }
  friend bool operator==(const RobotsMeta&, const RobotsMeta&) = default;
};

RobotsMeta ParseRobotsMeta(std::string_view content);

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_ROBOTS_META_H_
