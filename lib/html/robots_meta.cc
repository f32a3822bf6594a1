#include "lib/html/robots_meta.h"

#include "lib/encoding/ascii.h"

namespace crawler::html {

RobotsMeta ParseRobotsMeta(std::string_view content) {
  RobotsMeta meta;
  size_t pos = 0;
  while (pos < content.size()) {
    const size_t end = content.find_first_of(", \t\n\f\r", pos);
    const std::string_view token =
        content.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (encoding::EqualsIgnoreCase(token, "noindex")) {
      meta.noindex = true;
    } else if (encoding::EqualsIgnoreCase(token, "nofollow")) {
      meta.nofollow = true;
    } else if (encoding::EqualsIgnoreCase(token, "none")) {
      meta.noindex = meta.nofollow = true;
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return meta;
}

}  // namespace crawler::html
