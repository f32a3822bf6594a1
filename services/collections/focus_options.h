// FocusOptions: a focused collection's choice of the host to fetch from next, as each frontier
// partition plays it (services/frontier/focus_selector.h, docs/focused.md).
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_COLLECTIONS_FOCUS_OPTIONS_H_
#define CRAWLER_SERVICES_COLLECTIONS_FOCUS_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "lib/bandit/policy_factory.h"

namespace crawler::collections {

// A focused collection's host choice (focus_selector.h, docs/focused.md).
struct FocusOptions {
  // Off: hosts are leased in order of their politeness hints (the coverage crawl).
  bool enabled = false;
  // A lib/bandit policy name (policy_factory.h): r1, r2, r3, thompson, d-thompson,
  // rested-thompson (the recommended one, docs/focused.md), d-ucb.
  std::string policy = "rested-thompson";
  bandit::PolicyOptions policy_options;
  // Seeds the randomised policies' generator.
  uint64_t seed = 1;
  // URLs of the collection out on lease at once, [1, 1024]. Every slot is one choice of the
  // policy made before the rewards of the pulls in flight are known: 1 is the sequential bandit
  // of the simulator (tools/banditsim); more keeps several sites' politeness delays busy at once.
  uint32_t max_in_flight = 4;

  friend bool operator==(const FocusOptions&, const FocusOptions&) = default;
};

// kInvalidArgument naming the field (only when enabled); `budget` is the page budget N.
absl::Status ValidateFocusOptions(const FocusOptions& options, uint64_t budget);

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_FOCUS_OPTIONS_H_
