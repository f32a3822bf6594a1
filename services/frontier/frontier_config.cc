#include "services/frontier/frontier_config.h"

namespace crawler::frontier {

const config::KeyTable<FrontierOptions>& FrontierKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<FrontierOptions>;
    t->Add({"max_attempts", "--max-attempts", "Fetches per URL at most when they fail transiently"},
           &FrontierOptions::max_attempts)
        .Add({"retry_backoff", "--retry-backoff",
              "Wait before the first retry, doubling after each"},
             &FrontierOptions::retry_backoff_initial)
        .Add({"retry_backoff_max", "--retry-backoff-max", "Longest wait between retries"},
             &FrontierOptions::retry_backoff_max)
        .Add({"max_urls_per_host", "--max-urls-per-host",
              "URLs accepted per host at most (spider traps: calendars, session ids)"},
             &FrontierOptions::max_urls_per_host)
        .Add({"seen_cache_entries", "--seen-cache-entries",
              "URLs the in-memory seen cache holds, 8 bytes each (0: off)"},
             &FrontierOptions::seen_cache_entries);
    return t;
  }();
  return *table;
}

}  // namespace crawler::frontier
