// crawlctl's commands against an in-process fake Admin service on loopback: the fake records
// what arrives (requests, seed batches, metadata) and answers by a few fixed rules, so these
// tests pin the client alone: what it sends, how it streams, and how each failure maps to its
// message and exit code.
#include "tools/crawlctl/commands.h"
#include "tools/crawlctl/host_commands.h"

#include <google/protobuf/util/json_util.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "crawler/v1/admin.grpc.pb.h"
#include "grpcpp/server_context.h"
#include "gtest/gtest.h"
#include "services/common/grpc/server_runner.h"

namespace crawler::crawlctl {
namespace {

constexpr char kToken[] = "s3cret-token";

// Answers UNAUTHENTICATED without "Bearer s3cret-token", NOT_FOUND for the collection
// "missing", INVALID_ARGUMENT for a collection without seeds; otherwise a plausible reply.
class FakeAdmin final : public v1::Admin::Service {
 public:
  grpc::Status CreateCollection(grpc::ServerContext* context,
                                const v1::CreateCollectionRequest* request,
                                v1::CollectionInfo* reply) override {
    if (grpc::Status s = Check(context, request->collection().name()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    created_.push_back(request->collection());
    *reply->mutable_collection() = request->collection();
    reply->set_state(v1::COLLECTION_STATE_ACTIVE);
    return grpc::Status::OK;
  }
  grpc::Status UpdateCollection(grpc::ServerContext* context,
                                const v1::UpdateCollectionRequest* request,
                                v1::CollectionInfo* reply) override {
    if (grpc::Status s = Check(context, request->collection().name()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    updates_.push_back(*request);
    *reply->mutable_collection() = request->collection();
    reply->mutable_collection()->add_seeds("https://a.example/");
    reply->set_state(v1::COLLECTION_STATE_ACTIVE);
    return grpc::Status::OK;
  }
  grpc::Status GetCollection(grpc::ServerContext* context, const v1::GetCollectionRequest* request,
                             v1::CollectionInfo* reply) override {
    return Info(context, request->name(), v1::COLLECTION_STATE_ACTIVE, reply);
  }
  grpc::Status ListCollections(grpc::ServerContext* context,
                               const v1::ListCollectionsRequest* request,
                               v1::ListCollectionsResponse* reply) override {
    if (grpc::Status s = Check(context, ""); !s.ok()) return s;
    // Two pages, to show the client follows next_page_token.
    const bool first = request->page_token().empty();
    v1::CollectionInfo* info = reply->add_collections();
    info->mutable_collection()->set_name(first ? "alpha" : "beta");
    info->set_state(first ? v1::COLLECTION_STATE_ACTIVE : v1::COLLECTION_STATE_PAUSED);
    if (first) reply->set_next_page_token("page2");
    return grpc::Status::OK;
  }
  grpc::Status PauseCollection(grpc::ServerContext* context,
                               const v1::PauseCollectionRequest* request,
                               v1::CollectionInfo* reply) override {
    return Info(context, request->name(), v1::COLLECTION_STATE_PAUSED, reply);
  }
  grpc::Status ResumeCollection(grpc::ServerContext* context,
                                const v1::ResumeCollectionRequest* request,
                                v1::CollectionInfo* reply) override {
    return Info(context, request->name(), v1::COLLECTION_STATE_ACTIVE, reply);
  }
  grpc::Status DeleteCollection(grpc::ServerContext* context,
                                const v1::DeleteCollectionRequest* request,
                                v1::DeleteCollectionResponse*) override {
    if (grpc::Status s = Check(context, request->name()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    deleted_.push_back(request->name());
    return grpc::Status::OK;
  }
  grpc::Status AddSeeds(grpc::ServerContext* context,
                        grpc::ServerReader<v1::AddSeedsRequest>* reader,
                        v1::AddSeedsResponse* reply) override {
    if (grpc::Status s = Check(context, ""); !s.ok()) return s;
    v1::AddSeedsRequest batch;
    std::vector<int> sizes;
    uint64_t seeds = 0;
    std::string first_seed, last_seed, collection;
    while (reader->Read(&batch)) {
      if (collection.empty()) collection = batch.collection();
      sizes.push_back(batch.seeds_size());
      seeds += static_cast<uint64_t>(batch.seeds_size());
      if (first_seed.empty() && !batch.seeds().empty()) first_seed = batch.seeds(0);
      if (!batch.seeds().empty()) last_seed = batch.seeds(batch.seeds_size() - 1);
    }
    if (collection == "missing") return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such");
    absl::MutexLock lock(&mu_);
    batch_sizes_ = sizes;
    seed_collection_ = collection;
    first_seed_ = first_seed;
    last_seed_ = last_seed;
    reply->set_seeds(seeds);
    reply->set_queued(seeds - 1);
    reply->set_rejected(1);
    reply->add_rejected_samples("ftp://x/: not http(s)");
    return grpc::Status::OK;
  }
  grpc::Status GetCollectionStats(grpc::ServerContext* context,
                                  const v1::GetCollectionStatsRequest* request,
                                  v1::CollectionStats* reply) override {
    if (grpc::Status s = Check(context, request->name()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    ++stats_calls_;
    reply->set_name(request->name());
    reply->set_pages(100 * stats_calls_);
    reply->set_partitions_reporting(2);
    reply->set_partitions_total(2);
    return grpc::Status::OK;
  }
  grpc::Status ExplainUrl(grpc::ServerContext* context, const v1::ExplainUrlRequest* request,
                          v1::ExplainUrlResponse* reply) override {
    if (grpc::Status s = Check(context, request->collection()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    explain_sizes_.push_back(request->urls_size());
    for (const std::string& url : request->urls()) {
      v1::UrlExplanation* e = reply->add_explanations();
      e->set_url(url);
      e->set_canonical_url(url);
      e->set_scope_verdict(v1::SCOPE_VERDICT_IN_SCOPE);
    }
    return grpc::Status::OK;
  }

  // Host control: NOT_FOUND for the host "nope.test" (as the frontier words it); otherwise the
  // host after the change.
  grpc::Status ControlHost(grpc::ServerContext* context, const v1::ControlHostRequest* request,
                           v1::ControlHostResponse* reply) override {
    if (grpc::Status s = Check(context, request->collection()); !s.ok()) return s;
    if (request->host_key() == "nope.test") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "host nope.test is not in this collection");
    }
    absl::MutexLock lock(&mu_);
    controls_.push_back(*request);
    reply->mutable_host()->set_host_key(request->host_key());
    if (request->has_set_delay()) *reply->mutable_host()->mutable_controls()->mutable_delay() =
        request->set_delay();
    return grpc::Status::OK;
  }
  grpc::Status DropHostQueue(grpc::ServerContext* context,
                             const v1::DropHostQueueRequest* request,
                             v1::DropHostQueueResponse* reply) override {
    if (grpc::Status s = Check(context, request->collection()); !s.ok()) return s;
    reply->set_dropped(7);
    reply->mutable_host()->set_host_key(request->host_key());
    reply->mutable_host()->set_dropped(7);
    return grpc::Status::OK;
  }
  grpc::Status ListHosts(grpc::ServerContext* context, const v1::ListHostsRequest* request,
                         v1::ListHostsResponse* reply) override {
    if (grpc::Status s = Check(context, request->collection()); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    list_orders_.push_back(request->order());
    reply->add_hosts()->set_host_key("a.example");
    reply->set_matched(3);
    reply->set_next_page_token("1,0");
    return grpc::Status::OK;
  }

  mutable absl::Mutex mu_;
  std::vector<v1::ControlHostRequest> controls_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::HostOrder> list_orders_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorization_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Collection> created_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::UpdateCollectionRequest> updates_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> deleted_ ABSL_GUARDED_BY(mu_);
  std::vector<int> batch_sizes_ ABSL_GUARDED_BY(mu_);
  std::string seed_collection_ ABSL_GUARDED_BY(mu_);
  std::string first_seed_ ABSL_GUARDED_BY(mu_);
  std::string last_seed_ ABSL_GUARDED_BY(mu_);
  std::vector<int> explain_sizes_ ABSL_GUARDED_BY(mu_);
  int stats_calls_ ABSL_GUARDED_BY(mu_) = 0;

 private:
  grpc::Status Check(grpc::ServerContext* context, const std::string& collection) {
    std::string authorization;
    for (const auto& [key, value] : context->client_metadata()) {
      if (key == "authorization") authorization.assign(value.data(), value.size());
    }
    {
      absl::MutexLock lock(&mu_);
      authorization_.push_back(authorization);
    }
    if (authorization != absl::StrCat("Bearer ", kToken)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad or missing bearer token");
    }
    if (collection == "missing") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "collection \"missing\" not found");
    }
    return grpc::Status::OK;
  }

  grpc::Status Info(grpc::ServerContext* context, const std::string& name,
                    v1::CollectionState state, v1::CollectionInfo* reply) {
    if (grpc::Status s = Check(context, name); !s.ok()) return s;
    reply->mutable_collection()->set_name(name);
    reply->mutable_collection()->add_seeds("https://a.example/");
    reply->set_state(state);
    reply->mutable_create_time()->set_seconds(1'795'721'400);
    return grpc::Status::OK;
  }
};

class CommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
        grpc_server::ServerRunner::Start(
            {.name = "fake-admin", .endpoints = {{.listen = "127.0.0.1:0", .services = {&fake_}}}});
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
    // A file of this test's own: the tests of this fixture run as parallel processes (ctest -j),
    // and so may other checkouts' builds of them, all under the same temp dir.
    std::string pattern = ::testing::TempDir() + "crawlctl_token_XXXXXX";
    const int fd = mkstemp(pattern.data());
    ASSERT_GE(fd, 0) << "mkstemp " << pattern;
    close(fd);
    token_file_ = pattern;
    WriteFile(token_file_, std::string("  ") + kToken + "\n");
  }

  void TearDown() override {
    if (!token_file_.empty()) std::remove(token_file_.c_str());
    if (runner_ != nullptr) {
      runner_->Shutdown(absl::Seconds(5));
      runner_->Wait();
    }
  }

  static void WriteFile(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
  }

  SessionOptions Options(bool json = false) {
    SessionOptions options;
    options.server = absl::StrCat("127.0.0.1:", runner_->Port(0));
    options.token_file = token_file_;
    options.timeout = absl::Seconds(10);
    options.json = json;
    return options;
  }

  Session Open(const SessionOptions& options) {
    absl::StatusOr<Session> session = Session::Open(options, out_, err_);
    EXPECT_TRUE(session.ok()) << session.status();
    return *std::move(session);
  }

  FakeAdmin fake_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
  std::string token_file_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(CommandsTest, CreateSendsTheCollectionOfTheYamlFileWithTheToken) {
  absl::StatusOr<CollectionFile> file = ParseCollectionYaml(
      "name: gov-si\nseeds: [https://www.gov.si/]\nallow_host_suffixes: [gov.si]\n"
      "min_delay: 2s\nmax_depth: 4\n",
      "gov.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  Session session = Open(Options());
  EXPECT_EQ(CreateCollection(session, *file), kExitOk) << err_.str();
  absl::MutexLock lock(&fake_.mu_);
  ASSERT_EQ(fake_.created_.size(), 1u);
  const v1::Collection& c = fake_.created_[0];
  EXPECT_EQ(c.name(), "gov-si");
  ASSERT_EQ(c.seeds_size(), 1);
  EXPECT_EQ(c.seeds(0), "https://www.gov.si/");
  ASSERT_EQ(c.scope().allowed_host_suffixes_size(), 1);
  EXPECT_EQ(c.scope().allowed_host_suffixes(0), "gov.si");
  EXPECT_EQ(c.politeness().min_delay().seconds(), 2);
  EXPECT_EQ(c.scope().max_depth(), 4u);
  EXPECT_EQ(fake_.authorization_.back(), absl::StrCat("Bearer ", kToken));
  EXPECT_NE(out_.str().find("created collection 'gov-si' with 1 seeds"), std::string::npos)
      << out_.str();
  EXPECT_EQ(out_.str().find(kToken), std::string::npos);
}

TEST_F(CommandsTest, AnInvalidCollectionIsRefusedBeforeAnyCall) {
  absl::StatusOr<CollectionFile> file = ParseCollectionYaml("name: x\n", "x.yaml");
  ASSERT_TRUE(file.ok());
  Session session = Open(Options());
  EXPECT_EQ(CreateCollection(session, *file), kExitInvalid);
  EXPECT_NE(err_.str().find("seed"), std::string::npos) << err_.str();
  absl::MutexLock lock(&fake_.mu_);
  EXPECT_TRUE(fake_.created_.empty());
}

TEST_F(CommandsTest, UpdateSendsTheMaskOfTheKeysPresent) {
  absl::StatusOr<CollectionFile> file = ParseCollectionYaml("min_delay: 5s\n", "u.yaml");
  ASSERT_TRUE(file.ok());
  Session session = Open(Options());
  EXPECT_EQ(UpdateCollection(session, "gov-si", *file), kExitOk) << err_.str();
  absl::MutexLock lock(&fake_.mu_);
  ASSERT_EQ(fake_.updates_.size(), 1u);
  EXPECT_EQ(fake_.updates_[0].collection().name(), "gov-si");
  ASSERT_EQ(fake_.updates_[0].update_mask().paths_size(), 1);
  EXPECT_EQ(fake_.updates_[0].update_mask().paths(0), "politeness.min_delay");
}

TEST_F(CommandsTest, SeedsAddStreams100000SeedsInBoundedMessages) {
  std::string text = "# a large seed list\n\n";
  for (int i = 0; i < 100'000; ++i) absl::StrAppend(&text, "https://h", i, ".example/\n");
  std::istringstream in(text);
  Session session = Open(Options());
  EXPECT_EQ(AddSeeds(session, "gov-si", in), kExitOk) << err_.str();
  {
    absl::MutexLock lock(&fake_.mu_);
    int total = 0;
    for (int size : fake_.batch_sizes_) {
      EXPECT_LE(size, 10'000);
      EXPECT_GT(size, 0);
      total += size;
    }
    EXPECT_EQ(total, 100'000);
    EXPECT_EQ(fake_.batch_sizes_.size(), 10u);
    EXPECT_EQ(fake_.seed_collection_, "gov-si");
    EXPECT_EQ(fake_.first_seed_, "https://h0.example/");
    EXPECT_EQ(fake_.last_seed_, "https://h99999.example/");
    EXPECT_EQ(fake_.authorization_.back(), absl::StrCat("Bearer ", kToken));
  }
  EXPECT_NE(out_.str().find("seeds         100000\n"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("ftp://x/: not http(s)"), std::string::npos) << out_.str();
}

TEST_F(CommandsTest, SeedsAddOfAnEmptyListIsInvalid) {
  std::istringstream in("# nothing\n\n");
  Session session = Open(Options());
  EXPECT_EQ(AddSeeds(session, "gov-si", in), kExitInvalid);
}

TEST_F(CommandsTest, AWrongTokenIsExit4) {
  WriteFile(token_file_, "wrong\n");
  Session session = Open(Options());
  EXPECT_EQ(GetCollection(session, "gov-si"), kExitUnauthenticated);
  EXPECT_NE(err_.str().find("UNAUTHENTICATED"), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("check --token-file"), std::string::npos) << err_.str();
  EXPECT_EQ(err_.str().find("wrong"), std::string::npos) << "the token was printed";
}

TEST_F(CommandsTest, NoTokenFileSendsNoAuthorization) {
  SessionOptions options = Options();
  options.token_file.clear();
  Session session = Open(options);
  EXPECT_EQ(ListCollections(session), kExitUnauthenticated);
  absl::MutexLock lock(&fake_.mu_);
  EXPECT_EQ(fake_.authorization_.back(), "");
}

TEST_F(CommandsTest, AnUnreadableOrEmptyTokenFileIsInvalid) {
  SessionOptions options = Options();
  options.token_file = "/nonexistent/token";
  EXPECT_TRUE(absl::IsInvalidArgument(Session::Open(options, out_, err_).status()));
  WriteFile(token_file_, " \n");
  EXPECT_TRUE(absl::IsInvalidArgument(Session::Open(Options(), out_, err_).status()));
}

TEST_F(CommandsTest, AnUnknownCollectionIsExit5) {
  Session session = Open(Options());
  EXPECT_EQ(GetCollection(session, "missing"), kExitNotFound);
  EXPECT_EQ(err_.str(), "crawlctl: collection 'missing' not found\n");
  std::istringstream in("https://a.example/\n");
  EXPECT_EQ(AddSeeds(session, "missing", in), kExitNotFound);
  EXPECT_EQ(Stats(session, "missing"), kExitNotFound);
  EXPECT_EQ(Explain(session, "missing", {"https://a.example/"}), kExitNotFound);
  EXPECT_EQ(DeleteCollection(session, "missing"), kExitNotFound);
}

TEST_F(CommandsTest, AStoppedServerIsExit3WithinTheDeadline) {
  SessionOptions options = Options();
  options.timeout = absl::Seconds(2);
  runner_->Shutdown(absl::ZeroDuration());
  runner_->Wait();
  runner_.reset();
  Session session = Open(options);
  const absl::Time start = absl::Now();
  EXPECT_EQ(ListCollections(session), kExitUnreachable);
  std::istringstream in("https://a.example/\n");
  EXPECT_EQ(AddSeeds(session, "gov-si", in), kExitUnreachable);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));  // two calls of at most 2 s each
  EXPECT_NE(err_.str().find("crawlctl: cannot reach the scheduler at " + options.server),
            std::string::npos)
      << err_.str();
}

TEST_F(CommandsTest, ListFollowsPagesAndPauseResumeDeleteSayWhatTheyDid) {
  Session session = Open(Options());
  EXPECT_EQ(ListCollections(session), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("alpha  ACTIVE"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("beta   PAUSED"), std::string::npos) << out_.str();
  EXPECT_EQ(PauseCollection(session, "gov-si"), kExitOk);
  EXPECT_NE(out_.str().find("paused collection 'gov-si'"), std::string::npos);
  EXPECT_EQ(ResumeCollection(session, "gov-si"), kExitOk);
  EXPECT_NE(out_.str().find("resumed collection 'gov-si'"), std::string::npos);
  EXPECT_EQ(DeleteCollection(session, "gov-si"), kExitOk);
  EXPECT_NE(out_.str().find("deleted collection 'gov-si'"), std::string::npos);
  absl::MutexLock lock(&fake_.mu_);
  EXPECT_EQ(fake_.deleted_, std::vector<std::string>{"gov-si"});
}

TEST_F(CommandsTest, JsonOutputParsesAsJson) {
  Session session = Open(Options(/*json=*/true));
  EXPECT_EQ(GetCollection(session, "gov-si"), kExitOk) << err_.str();
  v1::CollectionInfo info;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out_.str(), &info).ok()) << out_.str();
  EXPECT_EQ(info.collection().name(), "gov-si");
  out_.str("");
  EXPECT_EQ(ListCollections(session), kExitOk);
  v1::ListCollectionsResponse list;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out_.str(), &list).ok()) << out_.str();
  EXPECT_EQ(list.collections_size(), 2);
  out_.str("");
  EXPECT_EQ(DeleteCollection(session, "gov-si"), kExitOk);
  EXPECT_EQ(out_.str(), "{}\n");
}

TEST_F(CommandsTest, StatsWatchRefreshesCountTimesAsJsonLines) {
  Session session = Open(Options(/*json=*/true));
  EXPECT_EQ(Stats(session, "gov-si",
                  {.watch = true, .interval = absl::ZeroDuration(), .count = 3}),
            kExitOk)
      << err_.str();
  std::istringstream lines(out_.str());
  std::string line;
  std::vector<uint64_t> pages;
  while (std::getline(lines, line)) {
    v1::CollectionStats stats;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &stats).ok()) << line;
    pages.push_back(stats.pages());
  }
  EXPECT_EQ(pages, (std::vector<uint64_t>{100, 200, 300}));
}

TEST_F(CommandsTest, ExplainSendsAtMost100UrlsPerCallAndPrintsEveryOne) {
  std::vector<std::string> urls;
  for (int i = 0; i < 150; ++i) urls.push_back(absl::StrCat("https://a.example/", i));
  Session session = Open(Options());
  EXPECT_EQ(Explain(session, "gov-si", urls), kExitOk) << err_.str();
  {
    absl::MutexLock lock(&fake_.mu_);
    EXPECT_EQ(fake_.explain_sizes_, (std::vector<int>{100, 50}));
  }
  EXPECT_NE(out_.str().find("https://a.example/149\n"), std::string::npos);
  EXPECT_NE(out_.str().find("scope      IN_SCOPE"), std::string::npos) << out_.str();
}

// hosts: what each command sends, what it prints, and its exit codes: an unknown host is bad
// input (2), an unknown collection 5, a bad --sort refused before any call.
TEST_F(CommandsTest, HostCommandsSendTheirChangeAndMapTheirErrors) {
  Session session = Open(Options());
  const absl::Time until = absl::FromUnixSeconds(1'800'000'000);
  EXPECT_EQ(BlockHost(session, "web", "a.example", until), kExitOk) << err_.str();
  EXPECT_EQ(UnblockHost(session, "web", "a.example"), kExitOk);
  EXPECT_EQ(SetHostDelay(session, "web", "a.example", absl::Seconds(30)), kExitOk);
  EXPECT_EQ(SetHostPageLimit(session, "web", "a.example", 12), kExitOk);
  EXPECT_EQ(SetHostPageLimit(session, "web", "a.example", std::nullopt), kExitOk);
  {
    absl::MutexLock lock(&fake_.mu_);
    ASSERT_EQ(fake_.controls_.size(), 5u);
    EXPECT_EQ(fake_.controls_[0].block_until().seconds(), 1'800'000'000);
    EXPECT_TRUE(fake_.controls_[1].unblock());
    EXPECT_EQ(fake_.controls_[2].set_delay().seconds(), 30);
    EXPECT_EQ(fake_.controls_[3].set_max_pages(), 12u);
    EXPECT_TRUE(fake_.controls_[4].clear_max_pages());
  }
  EXPECT_NE(out_.str().find("delay             30s"), std::string::npos) << out_.str();
  out_.str("");
  EXPECT_EQ(DropHostQueue(session, "web", "a.example"), kExitOk);
  EXPECT_EQ(out_.str().rfind("dropped 7 URLs\n", 0), 0u) << out_.str();
  out_.str("");
  EXPECT_EQ(ListHosts(session, "web", {.sort = "next-due"}), kExitOk);
  EXPECT_NE(out_.str().find("1 of 3 hosts; next page: --page-token 1,0"), std::string::npos)
      << out_.str();

  err_.str("");
  EXPECT_EQ(UnblockHost(session, "web", "nope.test"), kExitInvalid);
  EXPECT_EQ(err_.str(), "crawlctl: invalid: host nope.test is not in this collection\n");
  EXPECT_EQ(UnblockHost(session, "missing", "a.example"), kExitNotFound);
  EXPECT_EQ(ListHosts(session, "web", {.sort = "sideways"}), kExitInvalid);
  absl::MutexLock lock(&fake_.mu_);
  EXPECT_EQ(fake_.list_orders_, std::vector<v1::HostOrder>{v1::HOST_ORDER_NEXT_DUE});
}

}  // namespace
}  // namespace crawler::crawlctl
