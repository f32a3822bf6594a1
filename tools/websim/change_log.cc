#include "tools/websim/change_log.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace crawler::websim {

std::string FormatChangeLog(const SiteModel& model, absl::Duration elapsed) {
  const WebsimOptions& options = model.options();
  std::string out = absl::StrFormat(
      "# websim change log v1\n"
      "# seed=%d hosts=%d page_ids_per_host=%d time_scale_days_per_second=%.9g epoch=%s "
      "now_days=%.9f\n"
      "# url\trate_per_day\tchanges\tchange_days (comma-separated, ascending)\n",
      options.seed, model.num_hosts(), model.num_page_ids(), options.time_scale,
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", options.change_epoch, absl::UTCTimeZone()),
      model.SimulatedDays(elapsed));
  for (int host = 0; host < model.num_hosts(); ++host) {
    for (int page = 0; page < model.num_page_ids(); ++page) {
      const PageRef ref{host, page};
      const std::vector<double> times = model.ChangeTimesOf(ref, elapsed);
      absl::StrAppend(&out, model.UrlOf(ref), "\t", absl::StrFormat("%.9g", model.ChangeRateOf(ref)),
                      "\t", times.size(), "\t");
      for (size_t i = 0; i < times.size(); ++i) {
        if (i > 0) out.push_back(',');
        absl::StrAppend(&out, absl::StrFormat("%.9f", times[i]));
      }
      out.push_back('\n');
    }
  }
  return out;
}

std::string FormatRates(const SiteModel& model) {
  std::string out;
  for (int host = 0; host < model.num_hosts(); ++host) {
    for (int page = 0; page < model.num_page_ids(); ++page) {
      const PageRef ref{host, page};
      absl::StrAppend(&out, model.UrlOf(ref), "\t",
                      absl::StrFormat("%.9g", model.ChangeRateOf(ref)), "\n");
    }
  }
  return out;
}

}  // namespace crawler::websim
