// AdminService and SchedulerInternalService over real gRPC on loopback (ServerRunner, port 0),
// with the CollectionManager over an in-memory fleet of frontier cores.
#include "services/scheduler/grpc/admin_service.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/collections/grpc/collection_convert.h"
#include "services/common/grpc/channel.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "tests/unit/scheduler/in_memory_fleet.h"

namespace crawler::scheduler {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "s3cret-token-0123456789";

class AdminServiceTest : public ::testing::Test {
 protected:
  AdminServiceTest() : store_(CollectionManager::ColumnFamilies()), fleet_(2, clock_) {
    manager_ = CollectionManager::Open({}, store_, fleet_, codec_, clock_).value();
    admin_ = std::make_unique<AdminService>(*manager_, kToken, clock_);
    internal_ = std::make_unique<SchedulerInternalService>(*manager_, absl::Seconds(3));
    runner_ = grpc_server::ServerRunner::Start(
                  {.name = "scheduler",
                   .endpoints = {{.listen = "127.0.0.1:0", .services = {internal_.get()}},
                                 {.listen = "127.0.0.1:0", .services = {admin_.get()}}}})
                  .value();
    admin_stub_ = v1::Admin::NewStub(
        grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", runner_->Port(1))).value());
    internal_stub_ = v1::SchedulerInternal::NewStub(
        grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", runner_->Port(0))).value());
  }
  ~AdminServiceTest() override { runner_->Shutdown(absl::Seconds(1)); }

  std::unique_ptr<grpc::ClientContext> Context(const std::string& token = kToken) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    return context;
  }

  grpc::Status Create(const std::string& name, std::vector<std::string> seeds) {
    Collection c;
    c.name = name;
    c.seeds = std::move(seeds);
    v1::CreateCollectionRequest request;
    *request.mutable_collection() = ToProto(c);
    v1::CollectionInfo info;
    return admin_stub_->CreateCollection(Context().get(), request, &info);
  }

  FakeClock clock_;
  const ProtoRecordCodec codec_;
  kv::InMemoryKvStore store_;
  InMemoryFleet fleet_;
  std::unique_ptr<CollectionManager> manager_;
  std::unique_ptr<AdminService> admin_;
  std::unique_ptr<SchedulerInternalService> internal_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
  std::unique_ptr<v1::Admin::Stub> admin_stub_;
  std::unique_ptr<v1::SchedulerInternal::Stub> internal_stub_;
};

TEST_F(AdminServiceTest, EveryAdminCallNeedsTheBearerToken) {
  v1::ListCollectionsRequest request;
  v1::ListCollectionsResponse response;
  EXPECT_EQ(admin_stub_->ListCollections(Context("").get(), request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(admin_stub_->ListCollections(Context("wrong-token-0123456789").get(), request,
                                         &response)
                .error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(admin_stub_->ListCollections(Context(std::string(kToken) + "x").get(), request,
                                         &response)
                .error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  auto basic = Context("");
  basic->AddMetadata("authorization", std::string("Basic ") + kToken);
  EXPECT_EQ(admin_stub_->ListCollections(basic.get(), request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(admin_stub_->ListCollections(Context().get(), request, &response).ok());
}

TEST_F(AdminServiceTest, TheAdminApiIsNotOnTheInternalPortNorTheReverse) {
  auto on_internal = v1::Admin::NewStub(
      grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", runner_->Port(0))).value());
  v1::ListCollectionsResponse response;
  EXPECT_EQ(on_internal->ListCollections(Context().get(), {}, &response).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(AdminServiceTest, ErrorsKeepTheirCodesAndNameTheCulprit) {
  v1::GetCollectionRequest get;
  get.set_name("missing");
  v1::CollectionInfo info;
  grpc::Status s = admin_stub_->GetCollection(Context().get(), get, &info);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(s.error_message(), HasSubstr("'missing'"));
  s = Create("Bad!", {"http://a.test/"});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("collection.name"));
  ASSERT_TRUE(Create("ok", {"http://a.test/"}).ok());
  EXPECT_EQ(Create("ok", {"http://a.test/"}).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  // What the wire cannot carry is refused naming the field path.
  Collection negative;
  negative.name = "y";
  negative.seeds = {"http://a.test/"};
  v1::CreateCollectionRequest request;
  *request.mutable_collection() = collections::ToProto(negative);
  request.mutable_collection()->mutable_politeness()->mutable_min_delay()->set_seconds(-1);
  s = admin_stub_->CreateCollection(Context().get(), request, &info);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("collection.politeness.min_delay"));
}

TEST_F(AdminServiceTest, UpdateChangesOnlyTheMaskedFieldsAndNeverNameOrSeeds) {
  ASSERT_TRUE(Create("u", {"http://a.test/"}).ok());
  Collection change;
  change.name = "u";
  change.seeds = {"http://ignored.test/"};
  change.limits.max_pages = 50;
  change.politeness.min_delay = absl::Seconds(7);
  v1::UpdateCollectionRequest request;
  *request.mutable_collection() = collections::ToProto(change);
  request.mutable_update_mask()->add_paths("limits");
  v1::CollectionInfo updated;
  grpc::Status s = admin_stub_->UpdateCollection(Context().get(), request, &updated);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(updated.collection().limits().max_pages(), 50u);
  EXPECT_NE(updated.collection().politeness().min_delay().seconds(), 7);
  EXPECT_EQ(updated.collection().seeds(0), "http://a.test/");
  // No mask: every field but the name and the seeds.
  request.clear_update_mask();
  s = admin_stub_->UpdateCollection(Context().get(), request, &updated);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(updated.collection().politeness().min_delay().seconds(), 7);
  EXPECT_EQ(updated.collection().seeds(0), "http://a.test/");
  request.mutable_update_mask()->add_paths("seeds");
  s = admin_stub_->UpdateCollection(Context().get(), request, &updated);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("update_mask"));
  request.mutable_update_mask()->set_paths(0, "no_such_field");
  s = admin_stub_->UpdateCollection(Context().get(), request, &updated);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("update_mask"));
}

TEST_F(AdminServiceTest, AddSeedsStreamsAHundredThousandSeedsInOneCall) {
  ASSERT_TRUE(Create("big", {"http://h0.test/"}).ok());
  auto context = Context();
  v1::AddSeedsResponse response;
  auto writer = admin_stub_->AddSeeds(context.get(), &response);
  for (int m = 0; m < 10; ++m) {
    v1::AddSeedsRequest message;
    if (m == 0) message.set_collection("big");
    for (int i = 0; i < 10'000; ++i) {
      message.add_seeds(absl::StrCat("http://h", i % 300, ".test/m", m, "/", i));
    }
    ASSERT_TRUE(writer->Write(message));
  }
  v1::AddSeedsRequest bad;
  bad.add_seeds("not a url");
  bad.add_seeds("ftp://h1.test/");
  ASSERT_TRUE(writer->Write(bad));
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.seeds(), 100'002u);
  EXPECT_EQ(response.queued(), 100'000u);
  EXPECT_EQ(response.rejected(), 2u);
  EXPECT_EQ(response.rejected_samples_size(), 2);

  v1::GetCollectionStatsRequest stats_request;
  stats_request.set_name("big");
  v1::CollectionStats stats;
  ASSERT_TRUE(admin_stub_->GetCollectionStats(Context().get(), stats_request, &stats).ok());
  EXPECT_EQ(stats.queued_urls(), 100'001u);
  EXPECT_EQ(stats.partitions_reporting(), 2u);
}

// crawlctl seeds add --sitemap: the seeds of a message with `sitemaps` set reach the frontier
// as sitemaps to read (level 1), the others as pages.
TEST_F(AdminServiceTest, AddSeedsCanAddSitemaps) {
  ASSERT_TRUE(Create("maps", {"http://a.test/"}).ok());
  auto context = Context();
  v1::AddSeedsResponse response;
  auto writer = admin_stub_->AddSeeds(context.get(), &response);
  v1::AddSeedsRequest message;
  message.set_collection("maps");
  message.set_sitemaps(true);
  message.add_seeds("http://a.test/sitemap.xml");
  ASSERT_TRUE(writer->Write(message));
  v1::AddSeedsRequest pages;
  pages.add_seeds("http://a.test/page");
  ASSERT_TRUE(writer->Write(pages));
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());
  EXPECT_EQ(response.queued(), 2u);

  v1::ExplainUrlRequest explain;
  explain.set_collection("maps");
  explain.add_urls("http://a.test/sitemap.xml");
  explain.add_urls("http://a.test/page");
  v1::ExplainUrlResponse explained;
  ASSERT_TRUE(admin_stub_->ExplainUrl(Context().get(), explain, &explained).ok());
  ASSERT_EQ(explained.explanations_size(), 2);
  ASSERT_TRUE(explained.explanations(0).found());
  EXPECT_EQ(explained.explanations(0).record().sitemap_level(), 1u);
  EXPECT_EQ(explained.explanations(0).record().depth(), 0u);
  ASSERT_TRUE(explained.explanations(1).found());
  EXPECT_EQ(explained.explanations(1).record().sitemap_level(), 0u);
}

TEST_F(AdminServiceTest, AStreamMustNameItsCollectionFirst) {
  auto context = Context();
  v1::AddSeedsResponse response;
  auto writer = admin_stub_->AddSeeds(context.get(), &response);
  v1::AddSeedsRequest message;
  message.add_seeds("http://a.test/");
  writer->Write(message);
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("collection"));
}

TEST_F(AdminServiceTest, FetchersLearnTheLiveCollectionsAndTheirStates) {
  ASSERT_TRUE(Create("a", {"http://a.test/"}).ok());
  v1::PauseCollectionRequest pause;
  pause.set_name("a");
  v1::CollectionInfo info;
  ASSERT_TRUE(admin_stub_->PauseCollection(Context().get(), pause, &info).ok());
  v1::ReportFetcherStatsRequest report;
  report.set_partition(0);
  report.set_incarnation("x");
  v1::ReportFetcherStatsResponse reply;
  grpc::ClientContext context;
  ASSERT_TRUE(internal_stub_->ReportFetcherStats(&context, report, &reply).ok());
  ASSERT_EQ(reply.collections_size(), 1);
  EXPECT_EQ(reply.collections(0).name(), "a");
  EXPECT_EQ(reply.collections(0).state(), v1::COLLECTION_STATE_PAUSED);
  EXPECT_EQ(reply.collections(0).definition().name(), "a");
  EXPECT_EQ(reply.report_interval().seconds(), 3);
  // A fetcher that holds the definition is not sent it again.
  v1::HeldDefinition* held = report.add_held();
  held->set_name("a");
  held->set_version(reply.collections(0).definition_version());
  grpc::ClientContext held_context;
  ASSERT_TRUE(internal_stub_->ReportFetcherStats(&held_context, report, &reply).ok());
  ASSERT_EQ(reply.collections_size(), 1);
  EXPECT_FALSE(reply.collections(0).has_definition());
  report.clear_held();
  report.set_partition(2);  // beyond the fleet
  grpc::ClientContext again;
  EXPECT_EQ(internal_stub_->ReportFetcherStats(&again, report, &reply).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(AdminToken, ComparisonIsExactAndTheFileIsTrimmed) {
  using grpc_common::ConstantTimeEquals;
  using grpc_common::ReadTokenFile;
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  const std::string path =
      (std::filesystem::temp_directory_path() / absl::StrCat("token-", getpid())).string();
  std::ofstream(path) << "  0123456789abcdef\n";
  EXPECT_EQ(ReadTokenFile(path).value_or(""), "0123456789abcdef");
  std::ofstream(path) << "short\n";
  EXPECT_TRUE(absl::IsInvalidArgument(ReadTokenFile(path).status()));
  std::filesystem::remove(path);
  EXPECT_TRUE(absl::IsNotFound(ReadTokenFile(path).status()));
}

}  // namespace
}  // namespace crawler::scheduler
