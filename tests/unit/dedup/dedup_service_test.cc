// The content index over gRPC, in process on loopback: DedupServer (RocksDB in a temp dir,
// ServerRunner on 127.0.0.1:0) with its handlers, and GrpcDedupClient. The client answers as
// LocalDedupClient over an identical core does; malformed requests are INVALID_ARGUMENT naming
// the field; a server that is gone or silent fails the client within its deadline; the index
// survives a restart on the same data_dir, which a second process cannot open.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crawler/v1/dedup.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/common/grpc/channel.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/grpc/dedup_convert.h"
#include "services/dedup/grpc/dedup_server.h"
#include "services/dedup/grpc/grpc_dedup_client.h"
#include "services/dedup/local_dedup_client.h"
#include "tests/unit/dedup/content_queries.h"

namespace crawler::dedup {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::Q;

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            absl::StrCat("dedup_service_test_", ::getpid(), "_", info->name());
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

class DedupServiceTest : public ::testing::Test {
 protected:
  DedupServerConfig Config() const {
    DedupServerConfig c;
    c.common.listen = "127.0.0.1:0";
    c.data_dir = dir_.str() + "/index";  // the parent does not exist either
    return c;
  }

  std::unique_ptr<DedupServer> Start() {
    absl::StatusOr<std::unique_ptr<DedupServer>> server = DedupServer::Start(Config());
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  static std::shared_ptr<grpc::Channel> Channel(int port) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", port));
    EXPECT_TRUE(channel.ok()) << channel.status();
    return *channel;
  }

  TempDir dir_;
};

// A fetcher's rounds (check, then record the unique ones) against the server and against the
// same core in process give the same answers, field for field.
TEST_F(DedupServiceTest, GrpcClientAnswersAsTheLocalClient) {
  std::unique_ptr<DedupServer> server = Start();
  ASSERT_NE(server, nullptr);
  GrpcDedupClient remote(Channel(server->port()));

  kv::InMemoryKvStore store(Dedup::ColumnFamilies());
  absl::StatusOr<std::unique_ptr<Dedup>> core = Dedup::Open({}, store);
  ASSERT_TRUE(core.ok()) << core.status();
  LocalDedupClient local(**core);

  const uint64_t base = 0x0123'4567'89ab'cdefULL;
  const std::vector<std::vector<ContentQuery>> rounds = {
      {Q("http://a.test/1", "one", base), Q("http://a.test/2", "two"),
       Q("http://a.test/1b", "one")},
      {Q("http://b.test/1", "one"), Q("http://b.test/near", "near", base ^ 0b101),
       Q("http://b.test/far", "far", ~base), Q("http://a.test/2", "two")},
      {},
  };
  for (size_t r = 0; r < rounds.size(); ++r) {
    SCOPED_TRACE(r);
    absl::StatusOr<std::vector<ContentVerdict>> want = local.Check(rounds[r]);
    absl::StatusOr<std::vector<ContentVerdict>> got = remote.Check(rounds[r]);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, *want);
    std::vector<ContentQuery> unique;
    for (size_t i = 0; i < want->size(); ++i) {
      if ((*want)[i].verdict == Verdict::kUnique) unique.push_back(rounds[r][i]);
    }
    absl::StatusOr<size_t> want_recorded = local.Record(unique);
    absl::StatusOr<size_t> got_recorded = remote.Record(unique);
    ASSERT_TRUE(got_recorded.ok()) << got_recorded.status();
    EXPECT_EQ(*got_recorded, *want_recorded);
  }
  // The rounds did find duplicates of both kinds, so the comparison covered originals.
  absl::StatusOr<std::vector<ContentVerdict>> last =
      remote.Check({Q("http://c.test/x", "one"), Q("http://c.test/y", "y", base ^ 1)});
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ((*last)[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ((*last)[0].original->url, "http://a.test/1");
  EXPECT_EQ((*last)[0].original->fetch_time, testing::QueryTime());
  EXPECT_EQ((*last)[1].verdict, Verdict::kNearDuplicate);
  EXPECT_EQ((*last)[1].distance_bits, 1);
}

// The links seen per collection over gRPC: fresh once, per collection; a bad request is
// INVALID_ARGUMENT.
TEST_F(DedupServiceTest, MarkLinksSeenOverGrpc) {
  std::unique_ptr<DedupServer> server = Start();
  ASSERT_NE(server, nullptr);
  GrpcDedupClient remote(Channel(server->port()));
  EXPECT_EQ(remote.MarkLinksSeen("c@1", {"http://x/", "http://y/", "http://x/"}).value(),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(remote.MarkLinksSeen("c@1", {"http://y/"}).value(), std::vector<bool>{false});
  EXPECT_EQ(remote.MarkLinksSeen("c@2", {"http://y/"}).value(), std::vector<bool>{true});
  EXPECT_TRUE(absl::IsInvalidArgument(remote.MarkLinksSeen("", {"http://y/"}).status()));
}

// More queries than one request may carry: the client splits them, in order.
TEST_F(DedupServiceTest, GrpcClientSplitsLargeBatches) {
  std::unique_ptr<DedupServer> server = Start();
  ASSERT_NE(server, nullptr);
  GrpcDedupClient client(Channel(server->port()), {.call_timeout = absl::Seconds(30)});
  std::vector<ContentQuery> queries;
  for (size_t i = 0; i <= kMaxQueriesPerCall; ++i) {
    queries.push_back(Q(absl::StrCat("http://a.test/", i), absl::StrCat("page ", i)));
  }
  queries.push_back(Q("http://a.test/copy", "page 0"));
  absl::StatusOr<std::vector<ContentVerdict>> verdicts = client.Check(queries);
  ASSERT_TRUE(verdicts.ok()) << verdicts.status();
  ASSERT_EQ(verdicts->size(), queries.size());
  // The copy is judged in a later request than its original, so it is new there too.
  EXPECT_EQ(verdicts->back().verdict, Verdict::kUnique);
  absl::StatusOr<size_t> recorded = client.Record(queries);
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(*recorded, kMaxQueriesPerCall + 1);  // the copy's content was recorded already
}

// The handlers reject malformed requests with INVALID_ARGUMENT naming the field, record nothing
// of them, and reject oversized requests.
TEST_F(DedupServiceTest, MalformedRequestsAreInvalidArgumentNamingTheField) {
  std::unique_ptr<DedupServer> server = Start();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<v1::Dedup::Stub> stub = v1::Dedup::NewStub(Channel(server->port()));

  v1::RecordRequest record =
      ToRecordRequest({Q("http://a.test/ok", "ok"), Q("http://a.test/bad", "x")});
  record.mutable_queries(1)->set_content_key("short");
  {
    grpc::ClientContext context;
    v1::RecordResponse response;
    grpc::Status s = stub->Record(&context, record, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(s.error_message(), HasSubstr("queries[1].content_key"));
  }
  GrpcDedupClient client(Channel(server->port()));
  absl::StatusOr<std::vector<ContentVerdict>> after = client.Check({Q("http://a.test/o2", "ok")});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)[0].verdict, Verdict::kUnique) << "a rejected batch recorded something";

  v1::CheckRequest check;
  for (size_t i = 0; i <= kMaxQueriesPerCall; ++i) {
    *check.add_queries() = ToProto(Q("http://a.test/", absl::StrCat(i)));
  }
  grpc::ClientContext context;
  v1::CheckResponse response;
  grpc::Status s = stub->Check(&context, check, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("queries: at most"));
}

// A stopped server: the client fails fast with UNAVAILABLE (or at its deadline), never later.
TEST_F(DedupServiceTest, StoppedServerFailsWithinTheDeadline) {
  std::unique_ptr<DedupServer> server = Start();
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  GrpcDedupClient client(Channel(port), {.call_timeout = absl::Milliseconds(500)});
  ASSERT_TRUE(client.Check({Q("http://a.test/1", "one")}).ok());
  ASSERT_TRUE(server->Close().ok());

  for (int attempt = 0; attempt < 3; ++attempt) {
    const absl::Time start = absl::Now();
    absl::StatusOr<std::vector<ContentVerdict>> verdicts =
        client.Check({Q("http://a.test/1", "one")});
    const absl::Duration took = absl::Now() - start;
    ASSERT_FALSE(verdicts.ok());
    EXPECT_TRUE(absl::IsUnavailable(verdicts.status()) ||
                absl::IsDeadlineExceeded(verdicts.status()))
        << verdicts.status();
    EXPECT_THAT(std::string(verdicts.status().message()), HasSubstr("Dedup.Check"));
    EXPECT_LT(took, absl::Milliseconds(500) + absl::Seconds(1)) << attempt;
  }
  absl::StatusOr<size_t> recorded = client.Record({Q("http://a.test/1", "one")});
  EXPECT_TRUE(absl::IsUnavailable(recorded.status()) || absl::IsDeadlineExceeded(recorded.status()))
      << recorded.status();
}

// A peer that accepts connections and never answers (a hung process): the call fails within the
// client's deadline (DEADLINE_EXCEEDED, or UNAVAILABLE when the channel's connection attempt
// gives up first).
TEST_F(DedupServiceTest, SilentServerFailsWithinTheDeadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);

  GrpcDedupClient client(Channel(ntohs(addr.sin_port)), {.call_timeout = absl::Milliseconds(300)});
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<ContentVerdict>> verdicts = client.Check({Q("http://a.test/1", "1")});
  const absl::Duration took = absl::Now() - start;
  ::close(fd);
  EXPECT_TRUE(absl::IsDeadlineExceeded(verdicts.status()) || absl::IsUnavailable(verdicts.status()))
      << verdicts.status();
  EXPECT_LT(took, absl::Milliseconds(300) + absl::Seconds(1));
}

// What was recorded survives Close and a restart on the same data_dir; while one server holds
// it, a second cannot open it.
TEST_F(DedupServiceTest, TheIndexSurvivesARestartAndTheDirectoryIsExclusive) {
  std::unique_ptr<DedupServer> first = Start();
  ASSERT_NE(first, nullptr);
  absl::StatusOr<std::unique_ptr<DedupServer>> second = DedupServer::Start(Config());
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_THAT(std::string(second.status().message()), HasSubstr(dir_.str()));
  {
    GrpcDedupClient client(Channel(first->port()));
    ASSERT_TRUE(client.Record({Q("http://a.test/1", "one")}).ok());
  }
  ASSERT_TRUE(first->Close().ok());
  first.reset();

  std::unique_ptr<DedupServer> again = Start();
  ASSERT_NE(again, nullptr);
  GrpcDedupClient client(Channel(again->port()));
  absl::StatusOr<std::vector<ContentVerdict>> verdicts = client.Check({Q("http://b.test/", "one")});
  ASSERT_TRUE(verdicts.ok()) << verdicts.status();
  EXPECT_EQ((*verdicts)[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ((*verdicts)[0].original->url, "http://a.test/1");
}

TEST_F(DedupServiceTest, BadConfigIsInvalidArgumentNamingTheKey) {
  DedupServerConfig c = Config();
  c.data_dir.clear();
  EXPECT_THAT(std::string(DedupServer::Start(c).status().message()), HasSubstr("data_dir"));
  c = Config();
  c.dedup.near_duplicate_bits = 4;
  EXPECT_THAT(std::string(DedupServer::Start(c).status().message()),
              HasSubstr("near_duplicate_bits"));
  c = Config();
  c.common.listen = "nowhere";
  absl::Status s = DedupServer::Start(c).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("listen"));
}

}  // namespace
}  // namespace crawler::dedup
