// WorkerPool: the threads that process fetched pages (PageProcessor: parse, fingerprint, dedup,
// WARC) off the network thread. The loop pushes each finished transfer; a worker takes up to
// `batch` pages at a time (one dedup call, one WARC write per batch) and leaves the results for
// the loop to collect, then wakes it (`wake`, once per batch).
//
// Back-pressure: outstanding() counts pages queued or being processed; the loop starts no
// transfer while it is at its limit (FetcherOptions::max_in_flight), so slow workers slow the
// fetching instead of growing the queue.
//
// Threading: Push, TakeProcessed, Idle and Backlogged are called by the loop thread; the
// workers run on their own threads between Start and StopAndJoin. One mutex guards the queues.
// The processor must outlive the pool.
#ifndef CRAWLER_SERVICES_FETCHER_WORKER_POOL_H_
#define CRAWLER_SERVICES_FETCHER_WORKER_POOL_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "services/fetcher/page_processor.h"

namespace crawler::fetcher {

class WorkerPool {
 public:
  WorkerPool(PageProcessor& processor, size_t batch, std::function<void()> wake);
  ~WorkerPool();  // REQUIRES: StopAndJoin called, or Start never called.

  // Starts `threads` workers.
  void Start(int threads);
  // Lets the workers finish the queue, then joins them.
  void StopAndJoin();

  void Push(FetchedPage page);
  // The pages processed since the last call, in the order their batches finished.
  std::vector<ProcessedPage> TakeProcessed();
  // Nothing queued, being processed or left to collect.
  bool Idle();
  // At least `limit` pages queued or being processed.
  bool Backlogged(size_t limit);

 private:
  void Loop();

  PageProcessor& processor_;
  const size_t batch_;
  const std::function<void()> wake_;
  std::vector<std::thread> threads_;

  absl::Mutex mu_;
  std::deque<FetchedPage> work_ ABSL_GUARDED_BY(mu_);
  std::vector<ProcessedPage> processed_ ABSL_GUARDED_BY(mu_);
  size_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;  // queued or being processed
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_WORKER_POOL_H_
