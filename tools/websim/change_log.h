// The truth about changing pages (docs/websim.md, "Changing pages"): every page's change rate
// and the simulated times of its changes so far, so a test or benchmark can score a re-visit
// policy against what really happened.
//
//   FormatChangeLog  "# websim change log v1" header, then url, rate, count, change days per page
//   FormatRates      url<TAB>rate_per_day per page, for running a simulator with the same rates
//
// Both list every page id of every host (all classes, sitemap-only pages included), by host then
// page id. Cost: one line per page, plus every change event up to `elapsed` for the change log.
//
// Thread-safety: as SiteModel (safe concurrently).
#ifndef CRAWLER_TOOLS_WEBSIM_CHANGE_LOG_H_
#define CRAWLER_TOOLS_WEBSIM_CHANGE_LOG_H_

#include <string>

#include "absl/time/time.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {

std::string FormatChangeLog(const SiteModel& model, absl::Duration elapsed);
std::string FormatRates(const SiteModel& model);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_CHANGE_LOG_H_
