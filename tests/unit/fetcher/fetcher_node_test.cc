// FetcherNode's reports to the scheduler: an outage is logged once, and not for one failed report;
// the last report of an incarnation is retried while the scheduler is away, kept on disk when it
// stays away, and sent by the next start.
#include "services/fetcher/fetcher_node.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "lib/clock/fake_clock.h"
#include "lib/log/recording_log_sink.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/in_process_politeness.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "services/scheduler/scheduler_client.h"
#include "tests/unit/fetcher/fetcher_fakes.h"

namespace crawler::fetcher {
namespace {

// Takes reports once `failures` calls have failed as Unavailable (a scheduler restarting).
class FakeScheduler final : public scheduler::SchedulerClient {
 public:
  explicit FakeScheduler(int failures) : failures_(failures) {}
  absl::StatusOr<scheduler::FetcherReportReply> Report(
      const scheduler::FetcherReport& request) override {
    absl::MutexLock lock(&mu_);
    ++calls_;
    if (failures_ > 0) {
      --failures_;
      return absl::UnavailableError("connection refused");
    }
    taken_.push_back(request);
    return scheduler::FetcherReportReply();
  }
  std::vector<std::string> TakenIncarnations() const {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> out;
    for (const auto& r : taken_) out.push_back(r.incarnation);
    return out;
  }
  int calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  mutable absl::Mutex mu_;
  int failures_ ABSL_GUARDED_BY(mu_);
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<scheduler::FetcherReport> taken_ ABSL_GUARDED_BY(mu_);
};

class FetcherNodeTest : public ::testing::Test {
 protected:
  // A directory of this test's own (other checkouts may run the same test at the same time).
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "fetcher_node_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // A node with no collections that stops after its first report round (Stop before Run), as
  // a node that is told to stop right away: one report, the drain, the last report.
  std::unique_ptr<FetcherNode> NewNode(scheduler::SchedulerClient& scheduler,
                                       absl::Duration final_timeout,
                                       absl::Duration report_interval = absl::Seconds(2)) {
    FetcherNodeOptions options;
    options.log = Logger(log_, "fetcher");
    options.report_interval = report_interval;
    options.warc_dir = (dir_ / "warc").string();
    options.log_dir = (dir_ / "logs").string();
    options.links_dir = (dir_ / "links").string();
    options.reports_dir = (dir_ / "reports").string();
    options.final_report_timeout = final_timeout;
    options.final_report_retry_interval = absl::Milliseconds(1);
    absl::StatusOr<std::unique_ptr<FetcherNode>> node = FetcherNode::Create(
        options, [](uint32_t, const std::string&, uint64_t) { return nullptr; }, scheduler, codec_,
        nullptr, politeness_, resolver_, guard_, clock_);
    EXPECT_TRUE(node.ok()) << node.status();
    return node.ok() ? *std::move(node) : nullptr;
  }

  size_t KeptReports() const {
    size_t n = 0;
    std::error_code error;
    for (const auto& e : std::filesystem::directory_iterator(dir_ / "reports", error)) {
      if (e.path().extension() == ".binpb") ++n;
    }
    return n;
  }

  // Log lines containing `text`.
  size_t Logged(const std::string& text) const {
    const std::vector<std::string> lines = log_.lines();
    return std::count_if(lines.begin(), lines.end(),
                         [&](const std::string& l) { return absl::StrContains(l, text); });
  }

  // Runs a node reporting every 5 ms to a scheduler that fails its first `failures` reports,
  // until it has reported `calls` times (5 s at most), then stops it.
  void RunWithFailedReports(int failures, int calls) {
    FakeScheduler scheduler(failures);
    std::unique_ptr<FetcherNode> node =
        NewNode(scheduler, absl::Milliseconds(50), absl::Milliseconds(5));
    ASSERT_NE(node, nullptr);
    std::thread run([&] { EXPECT_TRUE(node->Run().ok()); });
    for (int i = 0; i < 500 && scheduler.calls() < calls; ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    node->Stop();
    run.join();
    EXPECT_GE(scheduler.calls(), calls);
  }

  std::filesystem::path dir_;
  RecordingLogSink log_;
  // The kept reports' bytes as the fetcher service writes them (ReportFetcherStatsRequest).
  const scheduler::ProtoRecordCodec codec_;
  FakeClock clock_;
  politeness::InProcessPoliteness politeness_{politeness::PolitenessOptions{}, clock_, 1};
  crawler::testing::TableResolver resolver_;
  net::AddressPolicy guard_ = net::AddressPolicy::Create({}).value();
};

TEST_F(FetcherNodeTest, OneFailedReportIsNoOutage) {
  RunWithFailedReports(/*failures=*/1, /*calls=*/3);
  EXPECT_EQ(Logged("scheduler unreachable"), 0u);
  EXPECT_EQ(Logged("scheduler reachable again"), 0u);
}

TEST_F(FetcherNodeTest, AnOutageIsLoggedOnceAndSoIsItsEnd) {
  RunWithFailedReports(/*failures=*/4, /*calls=*/6);
  EXPECT_EQ(Logged("scheduler unreachable"), 1u);
  EXPECT_EQ(Logged("scheduler reachable again"), 1u);
}

TEST_F(FetcherNodeTest, TheLastReportIsRetriedUntilTheSchedulerTakesIt) {
  // The round's report and the first two tries of the last one fail; the third is taken.
  FakeScheduler scheduler(/*failures=*/3);
  std::unique_ptr<FetcherNode> node = NewNode(scheduler, absl::Milliseconds(50));
  ASSERT_NE(node, nullptr);
  const std::string incarnation = node->Snapshot().incarnation;
  node->Stop();
  ASSERT_TRUE(node->Run().ok());
  EXPECT_EQ(scheduler.calls(), 4);
  EXPECT_EQ(scheduler.TakenIncarnations(), std::vector<std::string>{incarnation});
  EXPECT_EQ(KeptReports(), 0u) << "a report the scheduler took is not kept";
}

TEST_F(FetcherNodeTest, ALastReportNotTakenIsKeptAndSentByTheNextStart) {
  FakeScheduler away(/*failures=*/1000);
  std::unique_ptr<FetcherNode> first = NewNode(away, absl::ZeroDuration());
  ASSERT_NE(first, nullptr);
  const std::string first_incarnation = first->Snapshot().incarnation;
  first->Stop();
  ASSERT_TRUE(first->Run().ok());
  EXPECT_EQ(away.calls(), 2) << "one round, one try of the last report (no timeout)";
  EXPECT_EQ(KeptReports(), 1u);

  FakeScheduler back(/*failures=*/0);
  std::unique_ptr<FetcherNode> second = NewNode(back, absl::Milliseconds(50));
  ASSERT_NE(second, nullptr);
  const std::string second_incarnation = second->Snapshot().incarnation;
  second->Stop();
  ASSERT_TRUE(second->Run().ok());
  // Its own round, the first incarnation's kept report, its own last report.
  EXPECT_EQ(back.TakenIncarnations(),
            (std::vector<std::string>{second_incarnation, first_incarnation, second_incarnation}));
  EXPECT_EQ(KeptReports(), 0u);
}

TEST_F(FetcherNodeTest, AnUnreadableKeptReportIsDropped) {
  std::filesystem::create_directories(dir_ / "reports");
  {
    std::FILE* f = std::fopen((dir_ / "reports" / "0123456789abcdef.binpb").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("\xff\xff not a report", f);
    std::fclose(f);
  }
  FakeScheduler scheduler(/*failures=*/0);
  std::unique_ptr<FetcherNode> node = NewNode(scheduler, absl::Milliseconds(50));
  ASSERT_NE(node, nullptr);
  node->Stop();
  ASSERT_TRUE(node->Run().ok());
  EXPECT_EQ(scheduler.TakenIncarnations().size(), 2u) << "the round and the last report only";
  EXPECT_EQ(KeptReports(), 0u);
}

}  // namespace
}  // namespace crawler::fetcher
