#include "services/collections/grpc/revisit_convert.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "services/common/grpc/proto_convert.h"

namespace crawler::collections {
namespace {

using grpc_common::DurationFromProto;
using grpc_common::DurationToProto;
using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::OptionalDurationFromProto;

constexpr double kNanosPerDay = 86'400e9;

// lib/recrawl keeps intervals as days (double); the wire carries Durations. Rounding to the
// nanosecond makes a round trip exact for every whole number of nanoseconds up to ~106,000
// days; beyond that (and for +infinity) the Duration is infinite.
google::protobuf::Duration DaysToProto(double days) {
  const double nanos = std::round(days * kNanosPerDay);
  if (!(std::fabs(nanos) < 9.2e18)) {
    return DurationToProto(days < 0 ? -absl::InfiniteDuration() : absl::InfiniteDuration());
  }
  return DurationToProto(absl::Nanoseconds(static_cast<int64_t>(nanos)));
}

absl::StatusOr<double> DaysFromProto(bool present, const google::protobuf::Duration& duration,
                                     double unset, std::string_view field) {
  if (!present) return unset;
  absl::StatusOr<absl::Duration> d = DurationFromProto(duration, field);
  if (!d.ok()) return d.status();
  if (*d == absl::InfiniteDuration()) return std::numeric_limits<double>::infinity();
  if (*d < absl::Seconds(9'000'000'000)) {
    return static_cast<double>(absl::ToInt64Nanoseconds(*d)) / kNanosPerDay;
  }
  return absl::ToDoubleSeconds(*d) / 86'400;
}

// StormCrawler configures whole minutes.
absl::StatusOr<int> MinutesFromProto(bool present, const google::protobuf::Duration& duration,
                                     int unset, std::string_view field) {
  if (!present) return unset;
  absl::StatusOr<absl::Duration> d = DurationFromProto(duration, field);
  if (!d.ok()) return d.status();
  if (*d > absl::Minutes(std::numeric_limits<int>::max()) ||
      *d != absl::Minutes(absl::ToInt64Minutes(*d))) {
    return InvalidField(field, "must be a whole number of minutes");
  }
  return static_cast<int>(absl::ToInt64Minutes(*d));
}

v1::PolicyOptions PolicyToProto(const recrawl::PolicyOptions& options) {
  v1::PolicyOptions p;
  *p.mutable_fixed()->mutable_interval() = DaysToProto(options.fixed.interval_days);
  p.mutable_proportional()->set_prior_shape(options.proportional.prior_shape);
  p.mutable_optimal()->set_min_visits_per_day(options.optimal.min_visits_per_day);
  p.mutable_optimal()->set_prior_shape(options.optimal.prior_shape);

  v1::NutchAdaptiveOptions& nutch = *p.mutable_nutch();
  nutch.set_inc_rate(options.nutch.inc_rate);
  nutch.set_dec_rate(options.nutch.dec_rate);
  *nutch.mutable_min_interval() = DaysToProto(options.nutch.min_interval_days);
  *nutch.mutable_max_interval() = DaysToProto(options.nutch.max_interval_days);
  nutch.set_sync_delta(options.nutch.sync_delta);
  nutch.set_sync_delta_rate(options.nutch.sync_delta_rate);
  *nutch.mutable_initial_interval() = DaysToProto(options.nutch.initial_interval_days);

  v1::StormCrawlerAdaptiveOptions& storm = *p.mutable_stormcrawler();
  *storm.mutable_min_interval() =
      DurationToProto(absl::Minutes(options.stormcrawler.min_interval_minutes));
  *storm.mutable_max_interval() =
      DurationToProto(absl::Minutes(options.stormcrawler.max_interval_minutes));
  storm.set_inc_rate(options.stormcrawler.inc_rate);
  storm.set_dec_rate(options.stormcrawler.dec_rate);
  *storm.mutable_default_interval() =
      DurationToProto(absl::Minutes(options.stormcrawler.default_interval_minutes));

  v1::SamplingStepRuleOptions& step = *p.mutable_step();
  *step.mutable_increase() = DaysToProto(options.step.increase_days);
  *step.mutable_decrease() = DaysToProto(options.step.decrease_days);
  *step.mutable_min_interval() = DaysToProto(options.step.min_interval_days);
  *step.mutable_max_interval() = DaysToProto(options.step.max_interval_days);
  *step.mutable_initial_interval() = DaysToProto(options.step.initial_interval_days);
  *step.mutable_tolerance() = DaysToProto(options.step.tolerance_days);

  v1::BayesClassifierOptions& bayes = *p.mutable_bayes();
  for (double days : options.bayes.category_days) {
    *bayes.add_category_intervals() = DaysToProto(days);
  }
  for (double prior : options.bayes.prior) bayes.add_prior(prior);
  return p;
}

// StormCrawler's AdaptiveScheduler options, whose intervals it keeps in whole minutes.
absl::Status StormCrawlerFromProto(const v1::StormCrawlerAdaptiveOptions& storm,
                                   std::string_view field,
                                   recrawl::StormCrawlerAdaptiveOptions& out) {
  const recrawl::StormCrawlerAdaptiveOptions storm_defaults;
  const std::string storm_field = FieldPath(field, "stormcrawler");
  struct MinutesField {
    bool present;
    const google::protobuf::Duration& value;
    int unset;
    const char* name;
    int* out;
  };
  const MinutesField minute_fields[] = {
      {storm.has_min_interval(), storm.min_interval(), storm_defaults.min_interval_minutes,
       "min_interval", &out.min_interval_minutes},
      {storm.has_max_interval(), storm.max_interval(), storm_defaults.max_interval_minutes,
       "max_interval", &out.max_interval_minutes},
      {storm.has_default_interval(), storm.default_interval(),
       storm_defaults.default_interval_minutes, "default_interval", &out.default_interval_minutes},
  };
  for (const MinutesField& f : minute_fields) {
    absl::StatusOr<int> value =
        MinutesFromProto(f.present, f.value, f.unset, FieldPath(storm_field, f.name));
    if (!value.ok()) return value.status();
    *f.out = *value;
  }
  out.inc_rate = storm.has_inc_rate() ? storm.inc_rate() : storm_defaults.inc_rate;
  out.dec_rate = storm.has_dec_rate() ? storm.dec_rate() : storm_defaults.dec_rate;
  return absl::OkStatus();
}

// The Bayesian classifier's categories and prior (three each, or none for the defaults).
absl::Status BayesFromProto(const v1::BayesClassifierOptions& bayes, std::string_view field,
                            recrawl::BayesClassifierOptions& out) {
  const std::string bayes_field = FieldPath(field, "bayes");
  if (bayes.category_intervals_size() != 0) {
    if (bayes.category_intervals_size() != 3) {
      return InvalidField(FieldPath(bayes_field, "category_intervals"),
                          "must hold exactly three intervals");
    }
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<double> value =
          DaysFromProto(true, bayes.category_intervals(i), 0,
                        FieldPath(FieldPath(bayes_field, "category_intervals"), i));
      if (!value.ok()) return value.status();
      out.category_days[i] = *value;
    }
  }
  if (bayes.prior_size() != 0) {
    if (bayes.prior_size() != 3) {
      return InvalidField(FieldPath(bayes_field, "prior"), "must hold exactly three values");
    }
    for (int i = 0; i < 3; ++i) out.prior[i] = bayes.prior(i);
  }
  return absl::OkStatus();
}

absl::StatusOr<recrawl::PolicyOptions> PolicyFromProto(const v1::PolicyOptions& p,
                                                       std::string_view policy,
                                                       std::string_view field) {
  const recrawl::PolicyOptions defaults;
  recrawl::PolicyOptions options;

  absl::StatusOr<double> days =
      DaysFromProto(p.fixed().has_interval(), p.fixed().interval(), defaults.fixed.interval_days,
                    FieldPath(field, "fixed.interval"));
  if (!days.ok()) return days.status();
  options.fixed.interval_days = *days;

  options.proportional.prior_shape = p.proportional().has_prior_shape()
                                         ? p.proportional().prior_shape()
                                         : defaults.proportional.prior_shape;
  options.optimal.min_visits_per_day = p.optimal().has_min_visits_per_day()
                                           ? p.optimal().min_visits_per_day()
                                           : defaults.optimal.min_visits_per_day;
  options.optimal.prior_shape =
      p.optimal().has_prior_shape() ? p.optimal().prior_shape() : defaults.optimal.prior_shape;

  const v1::NutchAdaptiveOptions& nutch = p.nutch();
  const recrawl::NutchAdaptiveOptions& nutch_defaults = defaults.nutch;
  options.nutch.inc_rate = nutch.has_inc_rate() ? nutch.inc_rate() : nutch_defaults.inc_rate;
  options.nutch.dec_rate = nutch.has_dec_rate() ? nutch.dec_rate() : nutch_defaults.dec_rate;
  options.nutch.sync_delta =
      nutch.has_sync_delta() ? nutch.sync_delta() : nutch_defaults.sync_delta;
  options.nutch.sync_delta_rate =
      nutch.has_sync_delta_rate() ? nutch.sync_delta_rate() : nutch_defaults.sync_delta_rate;
  struct DaysField {
    bool present;
    const google::protobuf::Duration& value;
    double unset;
    const char* name;
    double* out;
  };
  const std::string nutch_field = FieldPath(field, "nutch");
  const std::string step_field = FieldPath(field, "step");
  const recrawl::SamplingStepRuleOptions& step_defaults = defaults.step;
  const v1::SamplingStepRuleOptions& step = p.step();
  const std::pair<const std::string*, DaysField> day_fields[] = {
      {&nutch_field,
       {nutch.has_min_interval(), nutch.min_interval(), nutch_defaults.min_interval_days,
        "min_interval", &options.nutch.min_interval_days}},
      {&nutch_field,
       {nutch.has_max_interval(), nutch.max_interval(), nutch_defaults.max_interval_days,
        "max_interval", &options.nutch.max_interval_days}},
      {&nutch_field,
       {nutch.has_initial_interval(), nutch.initial_interval(),
        nutch_defaults.initial_interval_days, "initial_interval",
        &options.nutch.initial_interval_days}},
      {&step_field,
       {step.has_increase(), step.increase(), step_defaults.increase_days, "increase",
        &options.step.increase_days}},
      {&step_field,
       {step.has_decrease(), step.decrease(), step_defaults.decrease_days, "decrease",
        &options.step.decrease_days}},
      {&step_field,
       {step.has_min_interval(), step.min_interval(), step_defaults.min_interval_days,
        "min_interval", &options.step.min_interval_days}},
      {&step_field,
       {step.has_max_interval(), step.max_interval(), step_defaults.max_interval_days,
        "max_interval", &options.step.max_interval_days}},
      {&step_field,
       {step.has_initial_interval(), step.initial_interval(), step_defaults.initial_interval_days,
        "initial_interval", &options.step.initial_interval_days}},
      {&step_field,
       {step.has_tolerance(), step.tolerance(), step_defaults.tolerance_days, "tolerance",
        &options.step.tolerance_days}},
  };
  for (const auto& [parent, f] : day_fields) {
    absl::StatusOr<double> value =
        DaysFromProto(f.present, f.value, f.unset, FieldPath(*parent, f.name));
    if (!value.ok()) return value.status();
    *f.out = *value;
  }

  if (absl::Status s = StormCrawlerFromProto(p.stormcrawler(), field, options.stormcrawler);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = BayesFromProto(p.bayes(), field, options.bayes); !s.ok()) return s;
  options.bayes.update = policy == "bayes-published"
                             ? recrawl::BayesClassifierOptions::Update::kPublished
                             : recrawl::BayesClassifierOptions::Update::kCorrected;
  return options;
}

}  // namespace

v1::RevisitOptions ToProto(const RevisitOptions& revisit) {
  v1::RevisitOptions p;
  p.set_enabled(revisit.enabled);
  p.set_policy(revisit.policy);
  *p.mutable_policy_options() = PolicyToProto(revisit.policy_options);
  *p.mutable_min_interval() = DurationToProto(revisit.min_interval);
  *p.mutable_max_interval() = DurationToProto(revisit.max_interval);
  p.set_history_capacity(revisit.history_capacity);
  p.set_change_threshold_bits(revisit.change_threshold_bits);
  p.set_prior(revisit.prior);
  return p;
}

absl::StatusOr<RevisitOptions> FromProto(const v1::RevisitOptions& p, std::string_view field) {
  const RevisitOptions defaults;
  RevisitOptions revisit;
  revisit.enabled = p.enabled();
  revisit.policy = p.policy().empty() ? defaults.policy : p.policy();
  absl::StatusOr<recrawl::PolicyOptions> policy_options =
      PolicyFromProto(p.policy_options(), revisit.policy, FieldPath(field, "policy_options"));
  if (!policy_options.ok()) return policy_options.status();
  revisit.policy_options = *std::move(policy_options);
  absl::StatusOr<absl::Duration> min_interval =
      OptionalDurationFromProto(p.has_min_interval(), p.min_interval(), defaults.min_interval,
                                FieldPath(field, "min_interval"));
  if (!min_interval.ok()) return min_interval.status();
  revisit.min_interval = *min_interval;
  absl::StatusOr<absl::Duration> max_interval =
      OptionalDurationFromProto(p.has_max_interval(), p.max_interval(), defaults.max_interval,
                                FieldPath(field, "max_interval"));
  if (!max_interval.ok()) return max_interval.status();
  revisit.max_interval = *max_interval;
  revisit.history_capacity =
      p.has_history_capacity() ? p.history_capacity() : defaults.history_capacity;
  revisit.change_threshold_bits =
      p.has_change_threshold_bits() ? p.change_threshold_bits() : defaults.change_threshold_bits;
  revisit.prior = p.prior().empty() ? defaults.prior : p.prior();
  return revisit;
}

}  // namespace crawler::collections
