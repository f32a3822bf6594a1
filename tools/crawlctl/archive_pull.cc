#include "tools/crawlctl/archive_pull.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "crawler/v1/archive.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/fingerprint/sha256.h"
#include "lib/wacz/wacz_builder.h"
#include "services/common/grpc/status.h"
#include "tools/crawlctl/output.h"

namespace crawler::crawlctl {
namespace {

namespace fs = std::filesystem;

struct RemoteFile {
  std::string name;
  v1::ArchiveFileKind kind = v1::ARCHIVE_FILE_KIND_UNSPECIFIED;
  uint64_t size = 0;
  std::string sha256;
  std::string fetcher;
  uint32_t partition = 0;
  std::string address;
};

absl::StatusOr<std::string> FileSha256(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (in == nullptr) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  fingerprint::Sha256Hasher hasher;
  std::string buffer(size_t{1} << 20, '\0');
  while (size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get())) {
    hasher.Update(std::string_view(buffer.data(), n));
  }
  if (std::ferror(in.get())) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  return hasher.FinishLabelled();
}

uint64_t SizeOr0(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(size);
}

class Puller {
 public:
  Puller(Session& session, const PullOptions& options)
      : session_(session), options_(options), stub_(v1::ArchiveAdmin::NewStub(session.channel())) {}

  int Run();

 private:
  std::ostream& err() { return session_.err(); }
  // Lists the collection's files into files_ (by name); prints what is left out. The status of
  // the call (its failure is the scheduler's).
  grpc::Status List();
  // Gets one file into DIR; false (reported) if it could not be.
  bool Pull(const std::string& name);
  // One transfer of `file` into `part` from its current end.
  absl::Status Transfer(const RemoteFile& file, const std::string& part);

  Session& session_;
  const PullOptions& options_;
  std::unique_ptr<v1::ArchiveAdmin::Stub> stub_;
  std::map<std::string, RemoteFile> files_;
  int listing_problems_ = 0;  // of the last listing: fetchers not asked, partitions without one
  int failed_ = 0;            // files not pulled
  uint64_t bytes_ = 0;
  uint64_t fetched_ = 0;
  uint64_t already_ = 0;
};

grpc::Status Puller::List() {
  std::unique_ptr<grpc::ClientContext> context = session_.NewContext();
  context->set_deadline(absl::ToChronoTime(absl::Now() + options_.list_timeout));
  v1::ListCollectionFilesRequest request;
  request.set_collection(options_.collection);
  v1::ListCollectionFilesResponse listing;
  grpc::Status status = stub_->ListCollectionFiles(context.get(), request, &listing);
  if (!status.ok()) return status;
  files_.clear();
  listing_problems_ = 0;
  for (uint32_t k : listing.partitions_without_fetcher()) {
    err() << "crawlctl: partition " << k << ": no fetcher reports to the scheduler; its files "
          << "cannot be pulled now\n";
    ++listing_problems_;
  }
  for (const v1::FetcherArchive& fetcher : listing.fetchers()) {
    if (!fetcher.error().empty()) {
      err() << "crawlctl: fetcher of partition " << fetcher.partition() << " (" << fetcher.address()
            << "): " << fetcher.error() << "\n";
      ++listing_problems_;
      continue;
    }
    for (const std::string& name : fetcher.in_progress()) {
      err() << "crawlctl: left out " << name << " (partition " << fetcher.partition()
            << "): still being written\n";
    }
    for (const v1::ArchiveFile& f : fetcher.files()) {
      RemoteFile file{.name = f.name(),
                      .kind = f.kind(),
                      .size = f.size(),
                      .sha256 = f.sha256(),
                      .fetcher = fetcher.fetcher(),
                      .partition = fetcher.partition(),
                      .address = fetcher.address()};
      auto [it, inserted] = files_.emplace(f.name(), file);
      if (!inserted && it->second.sha256 != file.sha256) {
        err() << "crawlctl: " << f.name() << " is held by two fetchers (partitions "
              << it->second.partition << " and " << file.partition
              << ") with different contents; pulling the first\n";
        ++listing_problems_;
      }
    }
  }
  return grpc::Status::OK;
}

absl::Status Puller::Transfer(const RemoteFile& file, const std::string& part) {
  uint64_t offset = SizeOr0(part);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(
      std::fopen(part.c_str(), offset > 0 ? "ab" : "wb"), &std::fclose);
  if (out == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
  }
  std::unique_ptr<grpc::ClientContext> context = session_.NewContext();
  context->set_deadline(absl::ToChronoTime(absl::Now() + options_.transfer_timeout));
  v1::ReadCollectionFileRequest request;
  request.set_collection(options_.collection);
  request.set_fetcher(file.fetcher);
  request.set_name(file.name);
  request.set_offset(offset);
  std::unique_ptr<grpc::ClientReader<v1::ArchiveFileChunk>> reader =
      stub_->ReadCollectionFile(context.get(), request);
  v1::ArchiveFileChunk chunk;
  absl::Status problem = absl::OkStatus();
  while (problem.ok() && reader->Read(&chunk)) {
    if (chunk.offset() != offset || offset + chunk.data().size() > file.size) {
      problem = absl::DataLossError(absl::StrCat("a chunk at offset ", chunk.offset(), " of ",
                                                 chunk.data().size(), " bytes does not follow ",
                                                 offset, " within ", file.size, " bytes"));
      break;
    }
    if (std::fwrite(chunk.data().data(), 1, chunk.data().size(), out.get()) !=
        chunk.data().size()) {
      problem =
          absl::UnavailableError(absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
      break;
    }
    offset += chunk.data().size();
    bytes_ += chunk.data().size();
  }
  if (!problem.ok()) context->TryCancel();
  const grpc::Status status = reader->Finish();
  if (std::fflush(out.get()) != 0 || ::fsync(::fileno(out.get())) != 0) {
    if (problem.ok()) problem = absl::UnavailableError(absl::StrCat("cannot write ", part));
  }
  if (!problem.ok()) return problem;
  return grpc_common::FromGrpcStatus(status);
}

bool Puller::Pull(const std::string& name) {
  const std::string target = (fs::path(options_.dir) / name).string();
  const std::string part = target + ".part";
  {
    const RemoteFile& file = files_.at(name);
    absl::StatusOr<std::string> have = FileSha256(target);
    if (have.ok() && *have == file.sha256) {
      ++already_;
      return true;
    }
  }
  absl::Duration pause = options_.retry_pause;
  for (int attempt = 1; attempt <= options_.attempts; ++attempt) {
    if (attempt > 1) {
      absl::SleepFor(pause);
      pause *= 2;
    }
    auto it = files_.find(name);
    if (it == files_.end()) {
      err() << "crawlctl: " << name << ": no longer listed by any fetcher\n";
      return false;
    }
    const RemoteFile file = it->second;
    if (SizeOr0(part) > file.size) std::remove(part.c_str());
    if (SizeOr0(part) < file.size || !fs::exists(part)) {
      absl::Status status = Transfer(file, part);
      if (!status.ok()) {
        err() << "crawlctl: " << name << ": try " << attempt << " of " << options_.attempts
              << " broke at " << SizeOr0(part) << " of " << file.size
              << " bytes: " << status.ToString() << "\n";
        // A fetcher that stopped reporting (moved, or gone for good): ask the fetchers again,
        // one of them may hold the file now.
        if (absl::IsNotFound(status)) (void)List();
        continue;
      }
    }
    absl::StatusOr<std::string> got = FileSha256(part);
    if (got.ok() && *got == file.sha256) {
      std::error_code ec;
      fs::rename(part, target, ec);
      if (ec) {
        err() << "crawlctl: cannot rename " << part << ": " << ec.message() << "\n";
        return false;
      }
      ++fetched_;
      session_.out() << name << ": " << file.size << " bytes from fetcher " << file.partition
                     << " (" << file.address << ")\n";
      return true;
    }
    err() << "crawlctl: " << name << ": SHA-256 " << (got.ok() ? *got : got.status().ToString())
          << " is not the listed " << file.sha256 << "; fetching it again\n";
    std::remove(part.c_str());
  }
  err() << "crawlctl: " << name << ": not pulled after " << options_.attempts << " tries\n";
  return false;
}

int Puller::Run() {
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  if (ec) {
    return session_.FailInput(absl::InvalidArgumentError(
        absl::StrCat("cannot create ", options_.dir, ": ", ec.message())));
  }
  if (grpc::Status status = List(); !status.ok()) return session_.Fail(status);
  std::vector<std::string> names;
  for (const auto& [name, file] : files_) names.push_back(name);
  std::vector<std::string> warcs;
  for (const std::string& name : names) {
    if (!Pull(name)) {
      ++failed_;
      continue;
    }
    if (auto it = files_.find(name);
        it != files_.end() && it->second.kind == v1::ARCHIVE_FILE_KIND_WARC) {
      warcs.push_back((fs::path(options_.dir) / name).string());
    }
  }
  const int problems = listing_problems_ + failed_;
  session_.out() << "pulled " << fetched_ << " files (" << bytes_ << " bytes) into " << options_.dir
                 << "; " << already_ << " already there; " << failed_ << " not pulled; "
                 << listing_problems_ << " fetchers or partitions not reached\n";
  if (options_.wacz) {
    if (warcs.empty()) {
      err() << "crawlctl: no WARC files to package\n";
      return kExitFailure;
    }
    wacz::WaczOptions w;
    w.warc_files = warcs;
    w.output = options_.wacz_path.empty()
                   ? (fs::path(options_.dir) / (options_.collection + ".wacz")).string()
                   : options_.wacz_path;
    w.title = options_.collection;
    w.software = "crawlctl";
    w.created = absl::Now();
    w.index_form = options_.index_form == "cdxj"         ? wacz::IndexForm::kCdxj
                   : options_.index_form == "compressed" ? wacz::IndexForm::kCompressed
                                                         : wacz::IndexForm::kAuto;
    absl::StatusOr<wacz::WaczReport> report = wacz::BuildWacz(w);
    if (!report.ok()) {
      err() << "crawlctl: " << report.status().message() << " (" << w.output << " not written)\n";
      return kExitFailure;
    }
    session_.out() << w.output << ": " << report->warc_files << " WARC files, " << report->records
                   << " records, " << report->index_lines << " index lines, " << report->pages
                   << " pages (" << report->seeds << " seeds), " << report->bytes << " bytes\n";
  }
  return problems == 0 ? kExitOk : kExitFailure;
}

}  // namespace

int ListArchive(Session& session, const std::string& collection, absl::Duration timeout) {
  std::unique_ptr<v1::ArchiveAdmin::Stub> stub = v1::ArchiveAdmin::NewStub(session.channel());
  std::unique_ptr<grpc::ClientContext> context = session.NewContext();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  v1::ListCollectionFilesRequest request;
  request.set_collection(collection);
  v1::ListCollectionFilesResponse listing;
  grpc::Status status = stub->ListCollectionFiles(context.get(), request, &listing);
  if (!status.ok()) return session.Fail(status);
  bool complete = listing.partitions_without_fetcher().empty();
  if (session.options().json) {
    session.out() << ToJson(listing);
  } else {
    for (const v1::FetcherArchive& fetcher : listing.fetchers()) {
      session.out() << "partition " << fetcher.partition() << ", fetcher " << fetcher.fetcher()
                    << " (" << fetcher.address() << ")";
      if (!fetcher.error().empty()) session.out() << ": " << fetcher.error();
      session.out() << "\n";
      for (const v1::ArchiveFile& f : fetcher.files()) {
        session.out() << "  " << f.name() << "  " << f.size() << "  " << f.sha256() << "\n";
      }
      for (const std::string& name : fetcher.in_progress()) {
        session.out() << "  " << name << "  (still being written)\n";
      }
    }
    for (uint32_t k : listing.partitions_without_fetcher()) {
      session.out() << "partition " << k << ": no fetcher reports\n";
    }
  }
  for (const v1::FetcherArchive& fetcher : listing.fetchers()) {
    complete = complete && fetcher.error().empty();
  }
  return complete ? kExitOk : kExitFailure;
}

int PullArchive(Session& session, const PullOptions& options) {
  return Puller(session, options).Run();
}

}  // namespace crawler::crawlctl
