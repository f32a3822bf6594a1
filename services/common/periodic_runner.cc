#include "services/common/periodic_runner.h"

#include <pthread.h>

#include <utility>

namespace crawler {

PeriodicRunner::PeriodicRunner(PeriodicRunnerOptions options, const Clock& clock,
                               std::vector<PeriodicJob*> jobs)
    : options_(std::move(options)), clock_(clock), jobs_(std::move(jobs)) {}

PeriodicRunner::~PeriodicRunner() { Stop(); }

void PeriodicRunner::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void PeriodicRunner::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

void PeriodicRunner::Loop() {
  pthread_setname_np(pthread_self(), options_.thread_name.substr(0, 15).c_str());
  while (!stop_.WaitForNotificationWithTimeout(options_.tick)) {
    for (PeriodicJob* job : jobs_) job->Tick(clock_.Now());
  }
}

void RunLimit::Tick(absl::Time now) {
  if (reached_ || now - start_ < limit_) return;
  reached_ = true;
  on_reached_();
}

}  // namespace crawler
