#include "services/frontier/grpc/host_move_convert.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/storage_format.h"

namespace crawler::frontier {
namespace {

absl::Status Invalid(const std::string& field, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", status.message()));
}

}  // namespace

v1::HostChunk ToProto(const HostChunk& chunk) {
  v1::HostChunk p;
  p.set_host_key(chunk.host_key);
  for (const MovedUrl& url : chunk.urls) {
    v1::MovedUrl* u = p.add_urls();
    u->set_url(url.url);
    u->set_record(storage::EncodeUrlRecord(url.record));
    if (url.queue_pos.has_value()) {
      u->set_queued(true);
      u->set_queue_band(url.queue_pos->band);
      u->set_queue_depth(url.queue_pos->depth);
      u->set_queue_seq(url.queue_pos->seq);
      u->set_queue_flags(url.queue_flags);
    }
  }
  p.set_next(chunk.next);
  if (chunk.header.has_value()) p.set_header(storage::EncodeHostRecord(*chunk.header));
  return p;
}

absl::StatusOr<HostChunk> FromProto(const v1::HostChunk& p) {
  if (p.host_key().empty()) return absl::InvalidArgumentError("chunk.host_key: required");
  HostChunk chunk{.host_key = p.host_key(), .next = p.next()};
  chunk.urls.reserve(p.urls_size());
  for (int i = 0; i < p.urls_size(); ++i) {
    const v1::MovedUrl& u = p.urls(i);
    const std::string field = absl::StrCat("chunk.urls[", i, "]");
    if (u.url().empty()) return absl::InvalidArgumentError(field + ".url: required");
    absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord(u.record());
    if (!record.ok()) return Invalid(field + ".record", record.status());
    MovedUrl moved{.url = u.url(), .record = *std::move(record)};
    if (u.queued()) {
      if (u.queue_band() > std::numeric_limits<uint8_t>::max() ||
          u.queue_flags() > std::numeric_limits<uint8_t>::max()) {
        return absl::InvalidArgumentError(field + ": queue band and flags are bytes");
      }
      moved.queue_pos = storage::QueuePos{.band = static_cast<uint8_t>(u.queue_band()),
                                          .depth = u.queue_depth(),
                                          .seq = u.queue_seq()};
      moved.queue_flags = static_cast<uint8_t>(u.queue_flags());
    }
    chunk.urls.push_back(std::move(moved));
  }
  if (!p.header().empty()) {
    absl::StatusOr<storage::HostRecord> header = storage::DecodeHostRecord(p.header());
    if (!header.ok()) return Invalid("chunk.header", header.status());
    chunk.header = *std::move(header);
  }
  return chunk;
}

v1::ListHostsToMoveResponse ToProto(const HostsToMove& page) {
  v1::ListHostsToMoveResponse p;
  for (const std::string& host : page.host_keys) p.add_host_keys(host);
  p.set_next(page.next);
  p.set_total(page.total);
  return p;
}

HostsToMove FromProto(const v1::ListHostsToMoveResponse& p) {
  return HostsToMove{.host_keys = {p.host_keys().begin(), p.host_keys().end()},
                     .next = p.next(),
                     .total = p.total()};
}

v1::ListHeldUrlsResponse ToProto(const HeldUrls& page) {
  v1::ListHeldUrlsResponse p;
  for (const HeldUrl& held : page.urls) {
    v1::HeldUrl* h = p.add_urls();
    h->set_seq(held.seq);
    ToProto(held.url, *h->mutable_url());
  }
  p.set_next(page.next);
  p.set_total(page.total);
  return p;
}

absl::StatusOr<HeldUrls> FromProto(const v1::ListHeldUrlsResponse& p) {
  HeldUrls page{.next = p.next(), .total = p.total()};
  page.urls.reserve(p.urls_size());
  for (int i = 0; i < p.urls_size(); ++i) {
    absl::StatusOr<UrlToAdd> url =
        FromProto(p.urls(i).url(), absl::StrCat("urls[", i, "].url"));
    if (!url.ok()) return url.status();
    page.urls.push_back(HeldUrl{.seq = p.urls(i).seq(), .url = *std::move(url)});
  }
  return page;
}

}  // namespace crawler::frontier
