// Conversion between a collection's definition (services/scheduler/collection.h, with
// lib/scope's ScopeOptions and Verdict and lib/politeness's PolitenessOptions) and its
// crawler.v1 messages (proto/crawler/v1/admin.proto): the only code that knows both. The admin
// API's handlers and crawlctl use it; the scheduler core never sees a proto.
//
// Encoding cannot fail and writes every field. Decoding takes an unset optional field as the
// domain default (so a client sets only what it changes: an unset max_pages is unlimited, an
// unset min_delay 1 s) and returns kInvalidArgument naming the field path for what the wire
// cannot express: a missing name, negative or malformed durations, unknown enums. Everything
// else (at least one seed, limits >= 1, politeness ranges, re-visit budget) is
// Collection::Validate's, which the handlers call after decoding.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_COLLECTION_CONVERT_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_COLLECTION_CONVERT_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "crawler/v1/admin.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/politeness/politeness_options.h"
#include "lib/scope/scope.h"
#include "services/scheduler/collection.h"

namespace crawler::scheduler {

v1::ScopeOptions ToProto(const scope::ScopeOptions& scope);
scope::ScopeOptions FromProto(const v1::ScopeOptions& scope);

v1::ScopeVerdict ToProto(scope::Verdict verdict);
absl::StatusOr<scope::Verdict> FromProto(v1::ScopeVerdict verdict, std::string_view field);

v1::CollectionLimits ToProto(const CollectionLimits& limits);
CollectionLimits FromProto(const v1::CollectionLimits& limits);

v1::PolitenessOptions ToProto(const politeness::PolitenessOptions& politeness);
absl::StatusOr<politeness::PolitenessOptions> FromProto(const v1::PolitenessOptions& politeness,
                                                        std::string_view field);

v1::CollectionRevisit ToProto(const CollectionRevisit& revisit);
absl::StatusOr<CollectionRevisit> FromProto(const v1::CollectionRevisit& revisit,
                                            std::string_view field);

// Unset fields take CollectionFocus's defaults.
v1::CollectionFocus ToProto(const CollectionFocus& focus);
CollectionFocus FromProto(const v1::CollectionFocus& focus);

// `field` prefixes error paths ("collection.politeness.min_delay"); name is required.
v1::Collection ToProto(const Collection& collection);
absl::StatusOr<Collection> FromProto(const v1::Collection& collection, std::string_view field);

// A collection's generation (FrontierCollection.generation): its creation time in microseconds
// since the epoch, so that one deleted and created again under its name is another; 0 for an
// unset time.
uint64_t GenerationOf(const google::protobuf::Timestamp& create_time);

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_COLLECTION_CONVERT_H_
