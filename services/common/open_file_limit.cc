#include "services/common/open_file_limit.h"

#include <sys/resource.h>

#include <limits>

namespace crawler::service {
namespace {

size_t SoftLimitOf(const rlimit& limit) {
  return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<size_t>::max()
                                         : static_cast<size_t>(limit.rlim_cur);
}

}  // namespace

size_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::numeric_limits<size_t>::max();
  if (limit.rlim_cur != RLIM_INFINITY &&
      (limit.rlim_max == RLIM_INFINITY || limit.rlim_cur < limit.rlim_max)) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return SoftLimitOf(raised);
  }
  return SoftLimitOf(limit);
}

size_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::numeric_limits<size_t>::max();
  return SoftLimitOf(limit);
}

}  // namespace crawler::service
