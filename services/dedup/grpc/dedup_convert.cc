#include "services/dedup/grpc/dedup_convert.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "google/protobuf/repeated_ptr_field.h"
#include "services/common/grpc/proto_convert.h"

namespace crawler::dedup {
namespace {

using grpc_common::DecodeEach;
using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::OptionalTimeFromProto;
using grpc_common::TimeToProto;

constexpr size_t kContentKeyBytes = 16;

v1::Original OriginalToProto(const Original& original) {
  v1::Original p;
  p.set_url(original.url);
  if (original.fetch_time != absl::InfinitePast()) {
    *p.mutable_fetch_time() = TimeToProto(original.fetch_time);
  }
  p.set_warc_record_id(original.warc_record_id);
  p.set_payload_digest(original.payload_digest);
  return p;
}

absl::StatusOr<Original> OriginalFromProto(const v1::Original& p, std::string_view field) {
  absl::StatusOr<absl::Time> fetch_time = OptionalTimeFromProto(
      p.has_fetch_time(), p.fetch_time(), absl::InfinitePast(), FieldPath(field, "fetch_time"));
  if (!fetch_time.ok()) return fetch_time.status();
  return Original{.url = p.url(),
                  .fetch_time = *fetch_time,
                  .warc_record_id = p.warc_record_id(),
                  .payload_digest = p.payload_digest()};
}

absl::StatusOr<std::vector<ContentQuery>> QueriesFromProto(
    const google::protobuf::RepeatedPtrField<v1::ContentQuery>& queries) {
  if (static_cast<size_t>(queries.size()) > kMaxQueriesPerCall) {
    return InvalidField("queries", "at most " + std::to_string(kMaxQueriesPerCall) +
                                       " per call, got " + std::to_string(queries.size()));
  }
  return DecodeEach<ContentQuery>(queries, "queries",
                                  [](const v1::ContentQuery& query, std::string_view field) {
                                    return FromProto(query, field);
                                  });
}

void QueriesToProto(const std::vector<ContentQuery>& queries,
                    google::protobuf::RepeatedPtrField<v1::ContentQuery>& out) {
  out.Reserve(static_cast<int>(queries.size()));
  for (const ContentQuery& query : queries) *out.Add() = ToProto(query);
}

}  // namespace

v1::Verdict ToProto(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnique:
      return v1::VERDICT_UNIQUE;
    case Verdict::kExactDuplicate:
      return v1::VERDICT_EXACT_DUPLICATE;
    case Verdict::kNearDuplicate:
      return v1::VERDICT_NEAR_DUPLICATE;
  }
  return v1::VERDICT_UNSPECIFIED;  // unreachable: the switch covers every verdict
}

absl::StatusOr<Verdict> FromProto(v1::Verdict verdict, std::string_view field) {
  switch (verdict) {
    case v1::VERDICT_UNIQUE:
      return Verdict::kUnique;
    case v1::VERDICT_EXACT_DUPLICATE:
      return Verdict::kExactDuplicate;
    case v1::VERDICT_NEAR_DUPLICATE:
      return Verdict::kNearDuplicate;
    case v1::VERDICT_UNSPECIFIED:
      return InvalidField(field, "required");
    default:
      return InvalidField(field, "unknown verdict " + std::to_string(static_cast<int>(verdict)));
  }
}

v1::ContentQuery ToProto(const ContentQuery& query) {
  v1::ContentQuery p;
  p.set_url(query.url);
  const std::array<uint8_t, kContentKeyBytes> key = query.content_key.ToBytes();
  p.set_content_key(key.data(), key.size());
  if (query.simhash.has_value()) p.set_simhash(query.simhash->bits());
  if (query.fetch_time != absl::InfinitePast()) {
    *p.mutable_fetch_time() = TimeToProto(query.fetch_time);
  }
  p.set_warc_record_id(query.warc_record_id);
  p.set_payload_digest(query.payload_digest);
  return p;
}

absl::StatusOr<ContentQuery> FromProto(const v1::ContentQuery& p, std::string_view field) {
  ContentQuery query;
  query.url = p.url();
  if (p.content_key().size() != kContentKeyBytes) {
    return InvalidField(FieldPath(field, "content_key"),
                        "must be 16 bytes, got " + std::to_string(p.content_key().size()));
  }
  std::array<uint8_t, kContentKeyBytes> key;
  for (size_t i = 0; i < kContentKeyBytes; ++i) key[i] = static_cast<uint8_t>(p.content_key()[i]);
  query.content_key = fingerprint::ContentKey::FromBytes(key);
  if (p.has_simhash()) query.simhash = fingerprint::SimHash64(p.simhash());
  absl::StatusOr<absl::Time> fetch_time = OptionalTimeFromProto(
      p.has_fetch_time(), p.fetch_time(), absl::InfinitePast(), FieldPath(field, "fetch_time"));
  if (!fetch_time.ok()) return fetch_time.status();
  query.fetch_time = *fetch_time;
  query.warc_record_id = p.warc_record_id();
  query.payload_digest = p.payload_digest();
  return query;
}

v1::ContentVerdict ToProto(const ContentVerdict& verdict) {
  v1::ContentVerdict p;
  p.set_verdict(ToProto(verdict.verdict));
  if (verdict.original.has_value()) *p.mutable_original() = OriginalToProto(*verdict.original);
  p.set_distance_bits(verdict.distance_bits);
  return p;
}

absl::StatusOr<ContentVerdict> FromProto(const v1::ContentVerdict& p, std::string_view field) {
  ContentVerdict verdict;
  absl::StatusOr<Verdict> v = FromProto(p.verdict(), FieldPath(field, "verdict"));
  if (!v.ok()) return v.status();
  verdict.verdict = *v;
  if (p.has_original()) {
    absl::StatusOr<Original> original =
        OriginalFromProto(p.original(), FieldPath(field, "original"));
    if (!original.ok()) return original.status();
    verdict.original = *std::move(original);
  } else if (verdict.verdict != Verdict::kUnique) {
    return InvalidField(FieldPath(field, "original"), "required for a duplicate");
  }
  if (p.distance_bits() < 0 || p.distance_bits() > 64) {
    return InvalidField(FieldPath(field, "distance_bits"), "must be in [0, 64]");
  }
  verdict.distance_bits = p.distance_bits();
  return verdict;
}

v1::CheckRequest ToCheckRequest(const std::vector<ContentQuery>& queries) {
  v1::CheckRequest request;
  QueriesToProto(queries, *request.mutable_queries());
  return request;
}

absl::StatusOr<std::vector<ContentQuery>> FromCheckRequest(const v1::CheckRequest& request) {
  return QueriesFromProto(request.queries());
}

v1::CheckResponse ToCheckResponse(const std::vector<ContentVerdict>& verdicts) {
  v1::CheckResponse response;
  response.mutable_verdicts()->Reserve(static_cast<int>(verdicts.size()));
  for (const ContentVerdict& verdict : verdicts) *response.add_verdicts() = ToProto(verdict);
  return response;
}

absl::StatusOr<std::vector<ContentVerdict>> FromCheckResponse(const v1::CheckResponse& response) {
  return DecodeEach<ContentVerdict>(response.verdicts(), "verdicts",
                                    [](const v1::ContentVerdict& verdict, std::string_view field) {
                                      return FromProto(verdict, field);
                                    });
}

v1::RecordRequest ToRecordRequest(const std::vector<ContentQuery>& queries) {
  v1::RecordRequest request;
  QueriesToProto(queries, *request.mutable_queries());
  return request;
}

absl::StatusOr<std::vector<ContentQuery>> FromRecordRequest(const v1::RecordRequest& request) {
  return QueriesFromProto(request.queries());
}

}  // namespace crawler::dedup
