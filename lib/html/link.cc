#include "lib/html/link.h"

namespace crawler::html {

std::string_view LinkKindName(LinkKind kind) {
  switch (kind) {
    case LinkKind::kA:
      return "a";
    case LinkKind::kArea:
      return "area";
    case LinkKind::kFrame:
      return "frame";
    case LinkKind::kIframe:
      return "iframe";
    case LinkKind::kCanonical:
      return "canonical";
    case LinkKind::kAlternate:
      return "alternate";
    case LinkKind::kRefresh:
      return "refresh";
    case LinkKind::kImg:
      return "img";
    case LinkKind::kScript:
      return "script";
  }
  return "a";
}

}  // namespace crawler::html
