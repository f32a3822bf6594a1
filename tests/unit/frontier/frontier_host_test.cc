// FrontierHost on temporary directories: collections opened, re-opened with changed settings,
// served again by a new host on the same directory, dropped with their directory; names and
// partition counts checked; the lease reaper over a host's collections. Then the gRPC side
// (FrontierService behind a ServerRunner on a free loopback port, GrpcFrontierClient and
// FrontierControlClient): every method answers as LocalFrontierClient does on the same
// operations, and errors keep their codes across the wire.
#include "services/frontier/grpc/frontier_host.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/layout.h"
#include "lib/partition/partition.h"
#include "services/common/grpc/channel.h"
#include "services/common/grpc/server_runner.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/grpc/frontier_service.h"
#include "services/frontier/grpc/grpc_frontier_client.h"
#include "services/frontier/lease_reaper.h"
#include "services/frontier/host_api.h"
#include "services/frontier/local_frontier_client.h"

namespace crawler::frontier {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "frontier_host_test_XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

UrlToAdd U(const std::string& host, const std::string& path, uint32_t depth = 0) {
  return UrlToAdd{.canonical_url = "http://" + host + path, .host_key = host, .depth = depth};
}

CollectionSettings Settings(const std::string& name) {
  CollectionSettings settings;
  settings.name = name;
  settings.max_in_flight_per_host = 4;
  return settings;
}

FrontierHostOptions HostOptions(const std::string& dir, uint32_t index = 0, uint32_t count = 1) {
  FrontierHostOptions options;
  options.data_dir = dir;
  options.base.seen_cache_entries = 1024;
  options.store.write_buffer_bytes = 1 << 20;
  options.store.block_cache_bytes = 4 << 20;
  options.partition_index = index;
  options.partition_count = count;
  return options;
}

class FrontierHostTest : public ::testing::Test {
 protected:
  std::unique_ptr<FrontierHost> OpenHost(uint32_t index = 0, uint32_t count = 1) {
    absl::StatusOr<std::unique_ptr<FrontierHost>> host =
        FrontierHost::Open(HostOptions(dir_.path(), index, count), clock_);
    EXPECT_TRUE(host.ok()) << host.status();
    return host.ok() ? *std::move(host) : nullptr;
  }
  fs::path CollectionDir(const std::string& name) const {
    return fs::path(dir_.path()) / "collections" / name;
  }

  TempDir dir_;
  FakeClock clock_;
};

TEST_F(FrontierHostTest, OpenCollectionCreatesItOnceAndPersistsItsSettings) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->Find("news"), nullptr);
  EXPECT_EQ(host->OpenCollection(Settings("news"), 1).value(), true);
  EXPECT_EQ(host->OpenCollection(Settings("news"), 1).value(), false);  // same settings
  EXPECT_EQ(host->OpenCollection(Settings("blogs"), 1).value(), true);
  EXPECT_THAT(host->Names(), ElementsAre("blogs", "news"));
  EXPECT_EQ(host->Cores().size(), 2u);
  ASSERT_NE(host->Find("news"), nullptr);
  EXPECT_NE(host->Find("news"), host->Find("blogs"));
  EXPECT_TRUE(fs::exists(CollectionDir("news") / "collection.binpb"));
  EXPECT_TRUE(fs::is_directory(CollectionDir("news") / "store"));
  EXPECT_FALSE(fs::exists(CollectionDir("news") / "collection.binpb.tmp"));
}

TEST_F(FrontierHostTest, BadNamesSettingsAndPartitionCountsAreRefused) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  for (const std::string& name : std::vector<std::string>{"", "News", "-x", "_x", "../x", "a/b",
                                                          "a.b", std::string(64, 'a')}) {
    absl::StatusOr<bool> opened = host->OpenCollection(Settings(name), 1);
    EXPECT_TRUE(absl::IsInvalidArgument(opened.status())) << name << ": " << opened.status();
    EXPECT_THAT(opened.status().message(), HasSubstr("name")) << name;
    EXPECT_TRUE(absl::IsInvalidArgument(host->DropCollection(name).status())) << name;
  }
  EXPECT_TRUE(host->OpenCollection(Settings(std::string(63, 'a')), 1).ok());
  EXPECT_TRUE(host->OpenCollection(Settings("0-a_b"), 1).ok());

  // The scheduler's layout is the fleet's, whatever count the server was started with; only a
  // layout this server's partition is outside of is refused.
  TempDir second_dir;
  absl::StatusOr<std::unique_ptr<FrontierHost>> opened_second =
      FrontierHost::Open(HostOptions(second_dir.path(), 1, 2), clock_);
  ASSERT_TRUE(opened_second.ok()) << opened_second.status();
  std::unique_ptr<FrontierHost> second = *std::move(opened_second);
  absl::StatusOr<bool> foreign = second->OpenCollection(Settings("news"), 1);
  EXPECT_TRUE(absl::IsFailedPrecondition(foreign.status())) << foreign.status();
  EXPECT_THAT(foreign.status().message(), HasSubstr("partition_count"));
  EXPECT_TRUE(second->OpenCollection(Settings("news"), {.count = 1, .reshard_to = 2}).ok());

  CollectionSettings bad = Settings("news");
  bad.max_in_flight_per_host = 0;
  absl::StatusOr<bool> refused = host->OpenCollection(bad, 1);
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("max_in_flight_per_host"));
  EXPECT_EQ(host->Find("news"), nullptr);
  EXPECT_FALSE(fs::exists(CollectionDir("news")));
}

TEST_F(FrontierHostTest, ChangedSettingsReopenTheCoreWithItsUrls) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(host->OpenCollection(Settings("news"), 1).ok());
  ASSERT_TRUE(host->Find("news")->AddUrls({U("a.test", "/1"), U("a.test", "/2", 1)}).ok());
  ASSERT_EQ(host->Find("news")->Lease(1, 1)->size(), 1u);

  CollectionSettings shallow = Settings("news");
  shallow.max_depth = 1;
  EXPECT_EQ(host->OpenCollection(shallow, 1).value(), true);
  EXPECT_EQ(host->Settings("news").value(), shallow);
  std::shared_ptr<Frontier> core = host->Find("news");
  // The new options apply; the URLs (and the lease, re-queued by the reopen) are still there.
  EXPECT_EQ(core->AddUrls({U("a.test", "/deep", 2)})->rejected_by_limit, 1u);
  EXPECT_EQ(core->Stats().leases_recovered, 1u);
  EXPECT_EQ(core->Stats().queued_urls, 2u);
  core.reset();
  EXPECT_EQ(host->OpenCollection(shallow, 1).value(), false);
}

// A focused collection whose settings change only in max_pages (the scheduler's split of its
// budget) keeps its core, so its bandit and leases carry on; the new budget is persisted for a
// restart, and 0 pages is a budget too. Any other change reopens.
TEST_F(FrontierHostTest, AFocusedCollectionsBudgetMovesWithoutAReopen) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  CollectionSettings focused = Settings("f");
  focused.max_pages = 10;
  focused.focus = {.enabled = true, .policy = "r3", .seed = 1, .max_in_flight = 1};
  ASSERT_TRUE(host->OpenCollection(focused, 1).ok());
  std::shared_ptr<Frontier> core = host->Find("f");
  ASSERT_TRUE(core->AddUrls({U("a.test", "/1"), U("a.test", "/2")}).ok());
  ASSERT_EQ(core->Lease(1, 1)->size(), 1u);
  for (const uint64_t budget : {uint64_t{0}, uint64_t{25}}) {
    focused.max_pages = budget;
    EXPECT_EQ(host->OpenCollection(focused, 1).value(), true);
    EXPECT_EQ(host->Find("f"), core);
    EXPECT_EQ(host->Settings("f").value(), focused);
  }
  EXPECT_EQ(core->Stats().in_flight_urls, 1u);
  EXPECT_EQ(core->Stats().leases_recovered, 0u);
  core.reset();  // a reopen waits for the handles in use
  focused.max_depth = 3;
  EXPECT_EQ(host->OpenCollection(focused, 1).value(), true);
  EXPECT_EQ(host->Find("f")->Stats().leases_recovered, 1u);  // a new core: the lease re-queued
  host.reset();
  host = OpenHost();
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->Settings("f").value(), focused);
}

// A reopen waits for the calls in progress on the old core: a handle taken before it stays
// usable until released, and the reopen then completes.
TEST_F(FrontierHostTest, AReopenWaitsForHandlesInUse) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(host->OpenCollection(Settings("news"), 1).ok());
  std::shared_ptr<Frontier> old_core = host->Find("news");
  CollectionSettings changed = Settings("news");
  changed.max_depth = 3;
  absl::StatusOr<bool> reopened = absl::UnknownError("not run");
  std::thread reopen([&] { reopened = host->OpenCollection(changed, 1); });
  // The old core still answers while the reopen waits for it.
  EXPECT_EQ(old_core->AddUrls({U("a.test", "/1")})->added, 1u);
  old_core.reset();
  reopen.join();
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE(*reopened);
  EXPECT_EQ(host->Find("news")->Stats().seen_urls, 1u);
}

TEST_F(FrontierHostTest, ARestartedHostServesTheSameCollections) {
  CollectionSettings news = Settings("news");
  news.max_pages = 10;
  {
    std::unique_ptr<FrontierHost> host = OpenHost();
    ASSERT_NE(host, nullptr);
    ASSERT_TRUE(host->OpenCollection(news, 1).ok());
    ASSERT_TRUE(host->OpenCollection(Settings("blogs"), 1).ok());
    ASSERT_TRUE(host->Find("news")->AddUrls({U("a.test", "/1"), U("b.test", "/1")}).ok());
  }
  // A directory that is not a collection's is left alone.
  fs::create_directories(CollectionDir("half-made"));
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  EXPECT_THAT(host->Names(), ElementsAre("blogs", "news"));
  EXPECT_EQ(host->Settings("news").value(), news);
  EXPECT_EQ(host->Find("news")->Stats().queued_urls, 2u);
  EXPECT_EQ(host->Find("news")->Lease(10, 10)->size(), 2u);
  EXPECT_EQ(host->OpenCollection(news, 1).value(), false);  // the scheduler's re-push
  host.reset();

  // A host whose partition is outside the stored layout refuses the stored collections.
  absl::StatusOr<std::unique_ptr<FrontierHost>> other =
      FrontierHost::Open(HostOptions(dir_.path(), 1, 2), clock_);
  EXPECT_TRUE(absl::IsFailedPrecondition(other.status())) << other.status();
}

TEST_F(FrontierHostTest, DropDeletesTheCollectionsDirectory) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(host->OpenCollection(Settings("news"), 1).ok());
  ASSERT_TRUE(host->Find("news")->AddUrls({U("a.test", "/1")}).ok());
  EXPECT_EQ(host->DropCollection("news").value(), true);
  EXPECT_EQ(host->Find("news"), nullptr);
  EXPECT_FALSE(fs::exists(CollectionDir("news")));
  EXPECT_EQ(host->DropCollection("news").value(), false);
  // Opened again, it starts empty.
  ASSERT_TRUE(host->OpenCollection(Settings("news"), 1).ok());
  EXPECT_EQ(host->Find("news")->Stats().seen_urls, 0u);
}

TEST_F(FrontierHostTest, TheLeaseReaperVisitsEveryCollection) {
  std::unique_ptr<FrontierHost> host = OpenHost();
  ASSERT_NE(host, nullptr);
  LeaseReaper reaper({}, [&host] { return host->Cores(); });
  for (const char* name : {"a", "b"}) {
    ASSERT_TRUE(host->OpenCollection(Settings(name), 1).ok());
    ASSERT_TRUE(host->Find(name)->AddUrls({U("a.test", "/1")}).ok());
    ASSERT_EQ(host->Find(name)->Lease(1, 1)->size(), 1u);
  }
  clock_.Advance(absl::Minutes(3));
  reaper.Tick(clock_.Now());
  EXPECT_EQ(reaper.expired(), 2u);
  // Collections opened later are reaped too.
  ASSERT_TRUE(host->OpenCollection(Settings("c"), 1).ok());
  ASSERT_TRUE(host->Find("c")->AddUrls({U("a.test", "/1")}).ok());
  ASSERT_EQ(host->Find("c")->Lease(1, 1)->size(), 1u);
  clock_.Advance(absl::Minutes(3));
  reaper.Tick(clock_.Now());
  EXPECT_EQ(reaper.expired(), 3u);
}

// ---- over gRPC ----------------------------------------------------------------------------

// A frontier server on a free loopback port: a FrontierHost in its own directory behind a
// FrontierService.
struct TestServer {
  TestServer(const Clock& clock, uint32_t index = 0, uint32_t count = 1) {
    absl::StatusOr<std::unique_ptr<FrontierHost>> opened =
        FrontierHost::Open(HostOptions(dir.path(), index, count), clock);
    EXPECT_TRUE(opened.ok()) << opened.status();
    host = *std::move(opened);
    service = std::make_unique<FrontierService>(*host);
    absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> started =
        grpc_server::ServerRunner::Start(
            {.name = "frontier",
             .endpoints = {{.listen = "127.0.0.1:0", .services = {service.get()}}}});
    EXPECT_TRUE(started.ok()) << started.status();
    runner = *std::move(started);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> opened_channel =
        grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", runner->Port(0)));
    EXPECT_TRUE(opened_channel.ok()) << opened_channel.status();
    channel = *opened_channel;
  }
  ~TestServer() { Stop(); }
  void Stop() {
    if (runner == nullptr) return;
    runner->Shutdown(absl::Seconds(5));
    runner->Wait();
    runner.reset();
  }

  TempDir dir;
  std::unique_ptr<FrontierHost> host;
  std::unique_ptr<FrontierService> service;
  std::unique_ptr<grpc_server::ServerRunner> runner;
  std::shared_ptr<grpc::Channel> channel;
};

template <typename T>
T Ok(absl::StatusOr<T> value) {
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *std::move(value) : T{};
}

// The same operations through gRPC and on a LocalFrontierClient over an identical core give the
// same answers.
TEST(GrpcFrontierTest, EveryMethodAnswersAsTheLocalClientDoes) {
  FakeClock clock;
  TestServer server(clock);
  FrontierControlClient control(server.channel);
  ASSERT_EQ(control.OpenCollection(Settings("news"), 1).value(), true);
  GrpcFrontierClient remote(server.channel, "news");

  TempDir local_dir;
  absl::StatusOr<std::unique_ptr<FrontierHost>> local_host =
      FrontierHost::Open(HostOptions(local_dir.path()), clock);
  ASSERT_TRUE(local_host.ok()) << local_host.status();
  ASSERT_TRUE((*local_host)->OpenCollection(Settings("news"), 1).ok());
  std::shared_ptr<Frontier> core = (*local_host)->Find("news");
  LocalFrontierClient local(*core);

  for (FrontierClient* client :
       {static_cast<FrontierClient*>(&remote), static_cast<FrontierClient*>(&local)}) {
    SCOPED_TRACE(client == &remote ? "remote" : "local");
    EXPECT_EQ(Ok(client->IsExhausted()), true);
  }
  const std::vector<UrlToAdd> urls = {U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1"),
                                      U("a.test", "/1"), UrlToAdd{.canonical_url = "x"}};
  EXPECT_EQ(Ok(remote.AddUrls(urls)), Ok(local.AddUrls(urls)));
  const std::vector<LeasedTask> leased = Ok(remote.Lease(10, 1));
  ASSERT_EQ(leased.size(), 2u);
  EXPECT_EQ(leased, Ok(local.Lease(10, 1)));
  EXPECT_EQ(Ok(remote.Lease(0, 1)), Ok(local.Lease(0, 1)));

  FetchOutcome done{.lease_id = leased[0].lease_id,
                    .outcome = OutcomeClass::kFetched,
                    .http_status = 200,
                    .fetch_time = clock.Now(),
                    .etag = "\"e\"",
                    .content_fingerprint = 42,
                    .content_length = 7};
  FetchOutcome unknown{.lease_id = 999, .outcome = OutcomeClass::kFetched, .http_status = 200};
  EXPECT_EQ(Ok(remote.Complete({done, unknown})), Ok(local.Complete({done, unknown})));
  EXPECT_EQ(Ok(remote.ReleaseLeases({leased[1].lease_id, 999})),
            Ok(local.ReleaseLeases({leased[1].lease_id, 999})));
  const std::vector<HostTime> times = {
      {.host_key = "a.test", .next_allowed = clock.Now() + absl::Seconds(5)},
      {.host_key = "nowhere.test", .next_allowed = clock.Now()}};
  EXPECT_EQ(Ok(remote.ReportHostTimes(times)), Ok(local.ReportHostTimes(times)));
  const std::vector<std::string> lookups = {"http://a.test/1", "http://a.test/none",
                                            "http://b.test/1"};
  const std::vector<std::optional<UrlRecord>> records = Ok(remote.LookupUrls(lookups));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[0].has_value());
  EXPECT_FALSE(records[1].has_value());
  EXPECT_EQ(records, Ok(local.LookupUrls(lookups)));
  // More than one request's worth of URLs is split over calls.
  const std::vector<std::string> many(kMaxLookupUrls + 5, "http://a.test/1");
  EXPECT_EQ(Ok(remote.LookupUrls(many)).size(), many.size());

  const FrontierStats stats = Ok(remote.Stats());
  EXPECT_EQ(stats, Ok(local.Stats()));
  EXPECT_EQ(stats.leases_released, 1u);
  EXPECT_EQ(stats.completions_unknown, 1u);
  EXPECT_EQ(Ok(remote.IsExhausted()), Ok(local.IsExhausted()));
  EXPECT_EQ(Ok(remote.GetRevisitStatus()), Ok(local.GetRevisitStatus()));
  const recrawl::FleetSummary fleet{.budget_visits_per_day = 10};
  EXPECT_EQ(remote.RetuneRevisits(fleet).code(), local.RetuneRevisits(fleet).code());
  EXPECT_EQ(remote.RetuneRevisits(fleet).code(), absl::StatusCode::kFailedPrecondition);
}

// A collection "news" on a FrontierHost of its own in this process, as a twin of a server's.
struct LocalTwin {
  explicit LocalTwin(const Clock& clock) {
    absl::StatusOr<std::unique_ptr<FrontierHost>> opened =
        FrontierHost::Open(HostOptions(dir.path()), clock);
    EXPECT_TRUE(opened.ok()) << opened.status();
    host = *std::move(opened);
    EXPECT_TRUE(host->OpenCollection(Settings("news"), 1).ok());
    core = host->Find("news");
    client = std::make_unique<LocalFrontierClient>(*core);
  }
  TempDir dir;
  std::unique_ptr<FrontierHost> host;
  std::shared_ptr<Frontier> core;
  std::unique_ptr<LocalFrontierClient> client;
};

// Host control over gRPC answers as the core does, values and error codes alike.
TEST(GrpcFrontierTest, HostControlAnswersAsTheLocalClientDoes) {
  FakeClock clock;
  TestServer server(clock);
  FrontierControlClient control(server.channel);
  ASSERT_EQ(control.OpenCollection(Settings("news"), 1).value(), true);
  GrpcFrontierClient remote(server.channel, "news");
  LocalTwin twin(clock);
  LocalFrontierClient& local = *twin.client;

  const std::vector<UrlToAdd> urls = {U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")};
  EXPECT_EQ(Ok(remote.AddUrls(urls)), Ok(local.AddUrls(urls)));
  EXPECT_EQ(Ok(remote.Lease(1, 1)), Ok(local.Lease(1, 1)));
  using Kind = HostControlChange::Kind;
  const std::vector<HostControlChange> changes = {
      {.kind = Kind::kBlock, .until = clock.Now() + absl::Minutes(5)},
      {.kind = Kind::kSetDelay, .delay = absl::Milliseconds(2500)},
      {.kind = Kind::kSetPageLimit, .max_pages = 7},
      {.kind = Kind::kSetPageLimit},
      {.kind = Kind::kUnblock}};
  for (const HostControlChange& change : changes) {
    const HostSummary r = Ok(remote.ControlHost("a.test", change)).host;
    const HostSummary l = Ok(local.ControlHost("a.test", change)).host;
    EXPECT_EQ(r, l);
  }
  const ListHostsRequest list{.order = HostOrder::kNextDue, .page_size = 1};
  const ListHostsResult page = Ok(remote.ListHosts(list));
  EXPECT_EQ(page.hosts, Ok(local.ListHosts(list)).hosts);
  EXPECT_EQ(page.next_page_token, "1");
  const HostDetail detail = Ok(remote.GetHost("a.test"));
  EXPECT_EQ(detail.summary, Ok(local.GetHost("a.test")).summary);
  EXPECT_EQ(detail.summary.controls.delay, absl::Milliseconds(2500));
  const ListHostUrlsRequest any{.host_key = "a.test"};
  EXPECT_EQ(Ok(remote.ListHostUrls(any)).urls, Ok(local.ListHostUrls(any)).urls);
  const HostChangeResult dropped = Ok(remote.DropHostQueue("a.test"));
  EXPECT_EQ(dropped.dropped, 2u);
  EXPECT_EQ(dropped.host, Ok(local.DropHostQueue("a.test")).host);

  EXPECT_TRUE(absl::IsNotFound(remote.GetHost("c.test").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      remote.ControlHost("a.test", {.kind = Kind::kBlock, .until = clock.Now()}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(remote.ListHosts({.page_size = 5000}).status()));
  EXPECT_TRUE(absl::IsNotFound(GrpcFrontierClient(server.channel, "nope").GetHost("a").status()));
}

TEST(GrpcFrontierTest, ErrorsKeepTheirCodesAndNames) {
  FakeClock clock;
  TestServer server(clock, /*index=*/0, /*count=*/2);
  FrontierControlClient control(server.channel);
  ASSERT_TRUE(control.OpenCollection(Settings("news"), 2).ok());

  GrpcFrontierClient missing(server.channel, "nope");
  absl::StatusOr<FrontierStats> stats = missing.Stats();
  EXPECT_TRUE(absl::IsNotFound(stats.status())) << stats.status();
  EXPECT_THAT(stats.status().message(), HasSubstr("nope"));
  EXPECT_TRUE(absl::IsNotFound(missing.AddUrls({U("a.test", "/")}).status()));

  // A URL of a host partition 1 owns, sent to partition 0.
  std::string foreign;
  for (int i = 0; foreign.empty(); ++i) {
    const std::string host = absl::StrCat("h", i, ".test");
    if (partition::Partition(host, 2) == 1) foreign = host;
  }
  GrpcFrontierClient news(server.channel, "news");
  absl::StatusOr<AddResult> refused = news.AddUrls({U(foreign, "/")});
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("belongs to partition 1"));

  // Bad input names the field.
  FetchOutcome bad{.lease_id = 0, .outcome = OutcomeClass::kFetched};
  absl::Status status = news.Complete({bad}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("outcomes[0].lease_id"));

  // A layout older than the one the collection holds (a scheduler's stale push).
  ASSERT_TRUE(control.OpenCollection(Settings("other"), {.epoch = 5, .count = 2}).ok());
  absl::StatusOr<bool> stale = control.OpenCollection(Settings("other"), {.epoch = 4, .count = 2});
  EXPECT_TRUE(absl::IsFailedPrecondition(stale.status())) << stale.status();
  EXPECT_THAT(stale.status().message(), HasSubstr("older than layout 5"));
  absl::StatusOr<bool> bad_name = control.OpenCollection(Settings("News!"), 2);
  EXPECT_TRUE(absl::IsInvalidArgument(bad_name.status())) << bad_name.status();
  EXPECT_THAT(bad_name.status().message(), HasSubstr("collection.name"));
  CollectionSettings no_in_flight = Settings("news");
  no_in_flight.max_in_flight_per_host = 0;
  absl::StatusOr<bool> bad_settings = control.OpenCollection(no_in_flight, 2);
  EXPECT_TRUE(absl::IsInvalidArgument(bad_settings.status())) << bad_settings.status();
  EXPECT_THAT(bad_settings.status().message(), HasSubstr("collection.max_in_flight_per_host"));
  EXPECT_TRUE(absl::IsInvalidArgument(control.DropCollection("").status()));
}

TEST(GrpcFrontierTest, CollectionsAreOpenedReopenedAndDroppedRemotely) {
  FakeClock clock;
  std::string data_dir;
  {
    TestServer server(clock);
    data_dir = server.dir.path();
    FrontierControlClient control(server.channel);
    GrpcFrontierClient news(server.channel, "news");
    ASSERT_EQ(control.OpenCollection(Settings("news"), 1).value(), true);
    ASSERT_EQ(Ok(news.AddUrls({U("a.test", "/1", 0), U("a.test", "/2", 1)})).added, 2u);
    CollectionSettings shallow = Settings("news");
    shallow.max_depth = 0;
    EXPECT_EQ(control.OpenCollection(shallow, 1).value(), true);
    EXPECT_EQ(control.OpenCollection(shallow, 1).value(), false);
    EXPECT_EQ(Ok(news.AddUrls({U("a.test", "/3", 1)})).rejected_by_limit, 1u);
    EXPECT_EQ(Ok(news.Stats()).queued_urls, 2u);

    // A new server on the same directory serves the collection with its URLs.
    server.Stop();
    server.service.reset();
    server.host.reset();
    absl::StatusOr<std::unique_ptr<FrontierHost>> host =
        FrontierHost::Open(HostOptions(data_dir), clock);
    ASSERT_TRUE(host.ok()) << host.status();
    server.host = *std::move(host);
    server.service = std::make_unique<FrontierService>(*server.host);
    absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
        grpc_server::ServerRunner::Start(
            {.name = "frontier",
             .endpoints = {{.listen = "127.0.0.1:0", .services = {server.service.get()}}}});
    ASSERT_TRUE(runner.ok()) << runner.status();
    server.runner = *std::move(runner);
    std::shared_ptr<grpc::Channel> channel =
        grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", server.runner->Port(0))).value();
    GrpcFrontierClient again(channel, "news");
    FrontierControlClient control_again(channel);
    EXPECT_EQ(Ok(again.Stats()).queued_urls, 2u);
    EXPECT_EQ(Ok(again.Lease(10, 10)).size(), 2u);
    EXPECT_EQ(control_again.OpenCollection(shallow, 1).value(), false);

    EXPECT_EQ(control_again.DropCollection("news").value(), true);
    EXPECT_FALSE(fs::exists(fs::path(data_dir) / "collections" / "news"));
    EXPECT_EQ(control_again.DropCollection("news").value(), false);
    EXPECT_TRUE(absl::IsNotFound(again.Stats().status()));
  }
}

// A collection deleted and created again under its name is another generation: a client of the
// old one is refused (it would otherwise complete its old leases into the new one), and a
// partition told of a new generation starts it from an empty store.
TEST(GrpcFrontierTest, CallsForAGenerationThatIsGoneAreRefused) {
  FakeClock clock;
  TestServer server(clock);
  FrontierControlClient control(server.channel);
  CollectionSettings first = Settings("news");
  first.generation = 1000;
  ASSERT_TRUE(control.OpenCollection(first, 1).ok());
  GrpcFrontierClient old_one(server.channel, "news", {}, /*generation=*/1000);
  ASSERT_EQ(Ok(old_one.AddUrls({U("a.test", "/1", 0), U("a.test", "/2", 0)})).added, 2u);
  ASSERT_EQ(Ok(old_one.Lease(1, 1)).size(), 1u);

  CollectionSettings second = first;
  second.generation = 2000;
  ASSERT_EQ(control.OpenCollection(second, 1).value(), true);
  EXPECT_TRUE(absl::IsFailedPrecondition(old_one.Lease(10, 10).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(old_one.Complete({}).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(old_one.AddUrls({U("a.test", "/3", 0)}).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(old_one.Stats().status()));
  GrpcFrontierClient new_one(server.channel, "news", {}, /*generation=*/2000);
  EXPECT_EQ(Ok(new_one.Stats()).seen_urls, 0u) << "the old generation's URLs are gone";
  GrpcFrontierClient any(server.channel, "news");  // generation 0: whichever is open
  EXPECT_TRUE(any.Stats().ok());
}

TEST(GrpcFrontierTest, AStoppedServerIsUnavailableWithinTheDeadline) {
  FakeClock clock;
  TestServer server(clock);
  FrontierControlClient control(server.channel);
  ASSERT_TRUE(control.OpenCollection(Settings("news"), 1).ok());
  GrpcFrontierClient news(server.channel, "news", {.deadline = absl::Milliseconds(500)});
  ASSERT_TRUE(news.Stats().ok());
  server.Stop();
  const absl::Time start = absl::Now();
  const absl::Status status = news.AddUrls({U("a.test", "/1")}).status();
  EXPECT_TRUE(absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status)) << status;
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  const absl::Status lease = news.Lease(1, 1).status();
  EXPECT_TRUE(absl::IsUnavailable(lease) || absl::IsDeadlineExceeded(lease)) << lease;
}

// A reshard over the wire: the layout pushed by OpenCollection changes the routing in place
// (same core, same URLs), a stale one is refused, and a host moves from one server to the
// other through the reshard calls, the URLs that arrived meanwhile held and delivered.
TEST(GrpcFrontierTest, AHostMovesBetweenTwoServers) {
  FakeClock clock;
  TestServer old_server(clock, 0, 1);
  TestServer new_server(clock, 1, 2);
  FrontierControlClient old_control(old_server.channel);
  FrontierControlClient new_control(new_server.channel);
  ASSERT_TRUE(old_control.OpenCollection(Settings("news"), 1).ok());
  GrpcFrontierClient from(old_server.channel, "news");
  GrpcFrontierClient to(new_server.channel, "news");
  // Hosts of partition 1 of 2, which move.
  std::vector<std::string> moving;
  for (int i = 0; moving.size() < 2; ++i) {
    const std::string host = absl::StrCat("h", i, ".test");
    if (partition::Partition(host, 2) == 1) moving.push_back(host);
  }
  std::string stays;
  for (int i = 0; stays.empty(); ++i) {
    const std::string host = absl::StrCat("s", i, ".test");
    if (partition::Partition(host, 2) == 0) stays = host;
  }
  ASSERT_TRUE(from.AddUrls({U(moving[0], "/"), U(moving[0], "/a"), U(stays, "/")}).ok());
  const std::shared_ptr<Frontier> core = old_server.host->Find("news");

  const partition::PartitionLayout layout{.epoch = 1, .count = 1, .reshard_to = 2};
  ASSERT_EQ(old_control.OpenCollection(Settings("news"), layout).value(), true);
  ASSERT_EQ(new_control.OpenCollection(Settings("news"), layout).value(), true);
  EXPECT_EQ(old_server.host->Find("news"), core);  // applied in place
  EXPECT_EQ(old_control.OpenCollection(Settings("news"), layout).value(), false);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      old_control.OpenCollection(Settings("news"), {.count = 1}).status()));  // epoch 0 < 1

  const HostsToMove to_move = Ok(from.ListHostsToMove(0, 10));
  EXPECT_THAT(to_move.host_keys, ElementsAre(moving[0]));
  EXPECT_EQ(Ok(from.BeginHostMove(moving[0])), 0u);
  EXPECT_EQ(Ok(from.AddUrls({U(moving[0], "/b"), U(moving[1], "/")})).held, 2u);
  std::string after;
  for (int i = 0; i < 10; ++i) {
    const HostChunk chunk = Ok(from.ExportHost(moving[0], after, 1));
    ASSERT_TRUE(to.ImportHost(chunk).ok());
    if (chunk.next.empty()) {
      EXPECT_TRUE(absl::IsAlreadyExists(to.ImportHost(chunk)));  // a replayed last chunk
      break;
    }
    after = chunk.next;
  }
  EXPECT_EQ(Ok(from.ForgetHost(moving[0])), 2u);
  const HeldUrls held = Ok(from.ListHeldUrls(0, 100));
  ASSERT_EQ(held.urls.size(), 2u);
  std::vector<UrlToAdd> deliver;
  std::vector<uint64_t> seqs;
  for (const HeldUrl& h : held.urls) {
    deliver.push_back(h.url);
    seqs.push_back(h.seq);
  }
  EXPECT_EQ(Ok(to.AddUrls(deliver)).added, 2u);
  ASSERT_TRUE(from.DeleteHeldUrls(seqs).ok());
  EXPECT_EQ(Ok(from.Stats()).held_urls, 0u);
  const FrontierStats moved = Ok(to.Stats());
  EXPECT_EQ(moved.seen_urls, 4u);
  EXPECT_EQ(moved.queued_urls, 4u);
  EXPECT_EQ(Ok(from.Stats()).seen_urls, 1u);
}

}  // namespace
}  // namespace crawler::frontier
