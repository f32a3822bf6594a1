#include "services/frontier/url_record.h"

#include <string_view>

namespace crawler::frontier {

std::string_view OutcomeClassName(OutcomeClass outcome) {
  switch (outcome) {
    case OutcomeClass::kFetched:
      return "fetched";
    case OutcomeClass::kNotModified:
      return "not_modified";
    case OutcomeClass::kRedirect:
      return "redirect";
    case OutcomeClass::kHttpError:
      return "http_error";
    case OutcomeClass::kNetworkError:
      return "network_error";
    case OutcomeClass::kRobotsDenied:
      return "robots_denied";
    case OutcomeClass::kDuplicate:
      return "duplicate";
    case OutcomeClass::kOutOfScope:
      return "out_of_scope";
  }
  return "unknown";
}

bool CountsAsPage(OutcomeClass outcome) {
  switch (outcome) {
    case OutcomeClass::kFetched:
    case OutcomeClass::kNotModified:
    case OutcomeClass::kRedirect:
    case OutcomeClass::kHttpError:
    case OutcomeClass::kDuplicate:
      return true;
    case OutcomeClass::kNetworkError:
    case OutcomeClass::kRobotsDenied:
    case OutcomeClass::kOutOfScope:
      return false;
  }
  return false;
}

std::string_view UrlStatusName(UrlStatus status) {
  switch (status) {
    case UrlStatus::kQueued:
      return "queued";
    case UrlStatus::kWaiting:
      return "waiting";
    case UrlStatus::kDone:
      return "done";
    case UrlStatus::kDropped:
      return "dropped";
  }
  return "unknown";
}

bool LastmodTrusted(const UrlRecord& record) {
  // A pull whose visit has not happened yet is no evidence either way.
  const uint32_t settled =
      record.lastmod_pulls - (record.lastmod_pulled && record.lastmod_pulls > 0 ? 1 : 0);
  return 2 * uint64_t{record.lastmod_pulls_changed} >= settled;
}

}  // namespace crawler::frontier
