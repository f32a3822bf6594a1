#include "tools/crawlctl/commands.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/channel.h"
#include "services/common/grpc/status.h"
#include "tools/crawlctl/output.h"

namespace crawler::crawlctl {
namespace {

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read token file ", path));
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StripAsciiWhitespace(&token);
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat("token file ", path, " is empty"));
  return token;
}

}  // namespace

Session::Session(SessionOptions options, std::string token, std::shared_ptr<grpc::Channel> channel,
                 std::ostream& out, std::ostream& err)
    : options_(std::move(options)),
      token_(std::move(token)),
      channel_(std::move(channel)),
      stub_(v1::Admin::NewStub(channel_)),
      out_(&out),
      err_(&err) {}

absl::StatusOr<Session> Session::Open(const SessionOptions& options, std::ostream& out,
                                      std::ostream& err) {
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--timeout must be positive");
  }
  std::string token;
  if (!options.token_file.empty()) {
    absl::StatusOr<std::string> read = ReadToken(options.token_file);
    if (!read.ok()) return read.status();
    token = *std::move(read);
  }
  grpc_common::ChannelOptions channel_options;
  channel_options.tls = options.tls;
  channel_options.ca_file = options.ca_file;
  channel_options.tls_server_name = options.tls_server_name;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      grpc_common::MakeChannel(options.server, channel_options);
  if (!channel.ok()) return channel.status();
  return Session(options, std::move(token), *std::move(channel), out, err);
}

std::unique_ptr<grpc::ClientContext> Session::NewContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
  if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
  return context;
}

int Session::Fail(const grpc::Status& status, const std::string& collection) {
  const absl::Status s = grpc_common::FromGrpcStatus(status);
  const std::string code = absl::StatusCodeToString(s.code());
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      err() << "crawlctl: cannot reach the scheduler at " << options_.server << " (" << code
            << "): " << s.message() << "\n";
      return kExitUnreachable;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      err() << "crawlctl: " << code << ": " << s.message() << ": check --token-file\n";
      return kExitUnauthenticated;
    case absl::StatusCode::kNotFound:
      if (collection.empty()) {
        err() << "crawlctl: " << s.message() << "\n";
      } else {
        err() << "crawlctl: collection '" << collection << "' not found\n";
      }
      return kExitNotFound;
    case absl::StatusCode::kInvalidArgument:
      err() << "crawlctl: invalid: " << s.message() << "\n";
      return kExitInvalid;
    default:
      err() << "crawlctl: " << code << ": " << s.message() << "\n";
      return kExitFailure;
  }
}

int Session::FailInput(const absl::Status& status) {
  err() << "crawlctl: " << status.message() << "\n";
  return kExitInvalid;
}

int CreateCollection(Session& session, const CollectionFile& file) {
  absl::StatusOr<v1::CreateCollectionRequest> request = BuildCreateRequest(file);
  if (!request.ok()) return session.FailInput(request.status());
  absl::StatusOr<std::vector<std::string>> rest = SplitOffSeeds(*request);
  if (!rest.ok()) return session.FailInput(rest.status());
  v1::CollectionInfo info;
  const grpc::Status status = session.stub().CreateCollection(session.NewContext().get(),
                                                              *request, &info);
  if (!status.ok()) return session.Fail(status);
  v1::AddSeedsResponse added;
  if (!rest->empty()) {
    // The seeds past one request's bound, streamed into the collection just made.
    std::istringstream in(absl::StrJoin(*rest, "\n"));
    SeedBatcher batcher(in);
    const grpc::Status streamed = StreamSeeds(session, file.collection.name, batcher, added);
    if (!streamed.ok()) return session.Fail(streamed, file.collection.name);
  }
  return PrintReply(session, info, [&](const v1::CollectionInfo& i) {
    std::string out = absl::StrCat("created collection '", i.collection().name(), "' with ",
                                   request->collection().seeds_size(), " seeds");
    if (!rest->empty()) {
      absl::StrAppend(&out, " and added ", added.seeds(), " more (", added.queued(),
                      " queued, ", added.rejected(), " rejected)");
    }
    return absl::StrCat(out, "\n", FormatCollectionInfo(i));
  });
}

int UpdateCollection(Session& session, const std::string& name, const CollectionFile& file) {
  absl::StatusOr<v1::UpdateCollectionRequest> request = BuildUpdateRequest(name, file);
  if (!request.ok()) return session.FailInput(request.status());
  if (absl::Status fits = FitsOneRequest(request->ByteSizeLong(), "the update"); !fits.ok()) {
    return session.FailInput(fits);
  }
  v1::CollectionInfo info;
  const grpc::Status status = session.stub().UpdateCollection(session.NewContext().get(),
                                                              *request, &info);
  if (!status.ok()) return session.Fail(status, name);
  return PrintReply(session, info, [&](const v1::CollectionInfo& i) {
    return absl::StrCat("updated collection '", name, "': ",
                        absl::StrJoin(request->update_mask().paths(), ", "), "\n",
                        FormatCollectionInfo(i));
  });
}

int ListCollections(Session& session) {
  v1::ListCollectionsResponse all;
  v1::ListCollectionsRequest request;
  request.set_page_size(1000);
  do {
    v1::ListCollectionsResponse page;
    const grpc::Status status =
        session.stub().ListCollections(session.NewContext().get(), request, &page);
    if (!status.ok()) return session.Fail(status);
    for (v1::CollectionInfo& info : *page.mutable_collections()) {
      *all.add_collections() = std::move(info);
    }
    // A server repeating its token would loop forever; it is a broken server, not a long list.
    if (!page.next_page_token().empty() && page.next_page_token() == request.page_token()) {
      session.err() << "crawlctl: the scheduler repeated its page token; list incomplete\n";
      return kExitFailure;
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return PrintReply(session, all, FormatCollectionList);
}

namespace {

template <typename Request, typename Method>
int CallByName(Session& session, const std::string& name, Method method,
               const std::string& verb) {
  Request request;
  request.set_name(name);
  v1::CollectionInfo info;
  const grpc::Status status = (session.stub().*method)(session.NewContext().get(), request, &info);
  if (!status.ok()) return session.Fail(status, name);
  return PrintReply(session, info, [&](const v1::CollectionInfo& i) {
    return verb.empty() ? FormatCollectionInfo(i)
                        : absl::StrCat(verb, " collection '", name, "' (state ",
                                       StateLabel(i.state()), ")\n");
  });
}

}  // namespace

int GetCollection(Session& session, const std::string& name) {
  return CallByName<v1::GetCollectionRequest>(session, name, &v1::Admin::Stub::GetCollection, "");
}

int PauseCollection(Session& session, const std::string& name) {
  return CallByName<v1::PauseCollectionRequest>(session, name, &v1::Admin::Stub::PauseCollection,
                                                "paused");
}

int ResumeCollection(Session& session, const std::string& name) {
  return CallByName<v1::ResumeCollectionRequest>(session, name,
                                                 &v1::Admin::Stub::ResumeCollection, "resumed");
}

int DeleteCollection(Session& session, const std::string& name) {
  v1::DeleteCollectionRequest request;
  request.set_name(name);
  v1::DeleteCollectionResponse response;
  const grpc::Status status =
      session.stub().DeleteCollection(session.NewContext().get(), request, &response);
  if (!status.ok()) return session.Fail(status, name);
  return PrintReply(session, response, [&](const v1::DeleteCollectionResponse&) {
    return absl::StrCat("deleted collection '", name,
                        "': its definition and crawl state (its WARC files are kept)\n");
  });
}

grpc::Status StreamSeeds(Session& session, const std::string& name, SeedBatcher& batcher,
                         v1::AddSeedsResponse& response, bool* sent_any_out) {
  std::unique_ptr<grpc::ClientContext> context = session.NewContext();
  std::unique_ptr<grpc::ClientWriter<v1::AddSeedsRequest>> writer =
      session.stub().AddSeeds(context.get(), &response);
  bool sent_any = false;
  while (std::optional<v1::AddSeedsRequest> batch = batcher.Next(name)) {
    sent_any = true;
    // A failed write means the call is over (the server answered early, or it is gone);
    // Finish says why.
    if (!writer->Write(*batch)) break;
  }
  if (sent_any_out != nullptr) *sent_any_out = sent_any;
  if (batcher.failed() || !sent_any) {
    context->TryCancel();
    writer->Finish().IgnoreError();
    return grpc::Status(grpc::StatusCode::CANCELLED, "nothing (more) to send");
  }
  writer->WritesDone();
  return writer->Finish();
}

int AddSeeds(Session& session, const std::string& name, std::istream& in, size_t batch_size,
             bool sitemaps) {
  SeedBatcher batcher(in, batch_size);
  batcher.set_sitemaps(sitemaps);
  v1::AddSeedsResponse response;
  bool sent_any = false;
  const grpc::Status status = StreamSeeds(session, name, batcher, response, &sent_any);
  if (batcher.failed()) {
    session.err() << "crawlctl: reading the seed list failed; nothing more was sent\n";
    return kExitInvalid;
  }
  if (!sent_any) {
    return session.FailInput(absl::InvalidArgumentError("the seed list holds no URL"));
  }
  if (!status.ok()) return session.Fail(status, name);
  return PrintReply(session, response, FormatAddSeeds);
}

int Stats(Session& session, const std::string& name, const WatchOptions& watch) {
  for (uint64_t refresh = 1;; ++refresh) {
    v1::GetCollectionStatsRequest request;
    request.set_name(name);
    v1::CollectionStats stats;
    const grpc::Status status =
        session.stub().GetCollectionStats(session.NewContext().get(), request, &stats);
    if (!status.ok()) return session.Fail(status, name);
    if (watch.clear_screen && !session.options().json) session.out() << "\033[H\033[2J";
    if (watch.watch && refresh > 1 && !watch.clear_screen && !session.options().json) {
      session.out() << "\n";
    }
    if (const int rc = PrintReply(session, stats, FormatStats); rc != kExitOk) return rc;
    session.out().flush();
    if (!watch.watch || (watch.count != 0 && refresh >= watch.count)) return kExitOk;
    absl::SleepFor(watch.interval);
  }
}

int Partitions(Session& session) {
  v1::PartitionsStatus status;
  const grpc::Status rpc =
      session.stub().GetPartitions(session.NewContext().get(), v1::GetPartitionsRequest(), &status);
  if (!rpc.ok()) return session.Fail(rpc);
  return PrintReply(session, status, FormatPartitions);
}

int Explain(Session& session, const std::string& name, const std::vector<std::string>& urls) {
  v1::ExplainUrlResponse all;
  for (const v1::ExplainUrlRequest& request : BuildExplainRequests(name, urls)) {
    v1::ExplainUrlResponse part;
    const grpc::Status status =
        session.stub().ExplainUrl(session.NewContext().get(), request, &part);
    if (!status.ok()) return session.Fail(status, name);
    for (v1::UrlExplanation& e : *part.mutable_explanations()) {
      *all.add_explanations() = std::move(e);
    }
  }
  return PrintReply(session, all, FormatExplain);
}

}  // namespace crawler::crawlctl
