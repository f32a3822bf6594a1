#include "tools/crawlsim/change_process.h"

#include <cmath>
#include <limits>

#include "tools/crawlsim/random.h"

namespace crawler::crawlsim {

ChangeProcess::ChangeProcess(uint64_t stream_key, double rate_per_day)
    : key_(stream_key), rate_(rate_per_day) {
  if (rate_ > 0) {
    last_change_ = -Gap();
    next_change_ = Gap();
  } else {
    last_change_ = -std::numeric_limits<double>::infinity();
    next_change_ = std::numeric_limits<double>::infinity();
  }
}

double ChangeProcess::Gap() { return -std::log(StreamUniform(key_, counter_++)) / rate_; }

void ChangeProcess::AdvanceTo(double t_days) {
  while (next_change_ <= t_days) {
    last_change_ = next_change_;
    next_change_ += Gap();
  }
}

}  // namespace crawler::crawlsim
