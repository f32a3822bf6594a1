#include "services/fetcher/worker_pool.h"

#include <pthread.h>

#include <utility>

namespace crawler::fetcher {

WorkerPool::WorkerPool(PageProcessor& processor, size_t batch, std::function<void()> wake)
    : processor_(processor), batch_(batch), wake_(std::move(wake)) {}

WorkerPool::~WorkerPool() { StopAndJoin(); }

void WorkerPool::Start(int threads) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "fetch-worker");
      Loop();
    });
  }
}

void WorkerPool::StopAndJoin() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::Push(FetchedPage page) {
  absl::MutexLock lock(&mu_);
  work_.push_back(std::move(page));
  ++outstanding_;
}

std::vector<ProcessedPage> WorkerPool::TakeProcessed() {
  absl::MutexLock lock(&mu_);
  return std::exchange(processed_, {});
}

bool WorkerPool::Idle() {
  absl::MutexLock lock(&mu_);
  return outstanding_ == 0 && processed_.empty();
}

bool WorkerPool::Backlogged(size_t limit) {
  absl::MutexLock lock(&mu_);
  return outstanding_ >= limit;
}

void WorkerPool::Loop() {
  while (true) {
    std::vector<FetchedPage> batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WorkerPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stop_ || !pool->work_.empty();
          },
          this));
      if (work_.empty() && stop_) return;
      while (!work_.empty() && batch.size() < batch_) {
        batch.push_back(std::move(work_.front()));
        work_.pop_front();
      }
    }
    const size_t n = batch.size();
    std::vector<ProcessedPage> results = processor_.Process(std::move(batch));
    {
      absl::MutexLock lock(&mu_);
      for (ProcessedPage& p : results) processed_.push_back(std::move(p));
      outstanding_ -= n;
    }
    wake_();
  }
}

}  // namespace crawler::fetcher
