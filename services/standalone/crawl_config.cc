#include "services/standalone/crawl_config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/net/ip_address.h"

namespace crawler::standalone {
namespace {

// Each YAML key maps to a setter; the table is the single list of keys (unknown ones are
// rejected, and docs/configuration.md documents the same names).
using Setter = std::function<absl::Status(const YAML::Node&, CrawlConfig&)>;

absl::Status Bad(const std::string& key, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("config key \"", key, "\": ", why));
}

template <typename T>
Setter Scalar(std::string key, T CrawlConfig::*field) {
  return [key, field](const YAML::Node& n, CrawlConfig& c) -> absl::Status {
    try {
      c.*field = n.as<T>();
    } catch (const YAML::Exception& e) {
      return Bad(key, e.what());
    }
    return absl::OkStatus();
  };
}

template <typename T>
Setter Nested(std::string key, std::function<T&(CrawlConfig&)> field) {
  return [key, field](const YAML::Node& n, CrawlConfig& c) -> absl::Status {
    try {
      field(c) = n.as<T>();
    } catch (const YAML::Exception& e) {
      return Bad(key, e.what());
    }
    return absl::OkStatus();
  };
}

// A key whose YAML scalar is text parsed by `parse` (units: durations, visit rates).
template <typename T>
Setter ParsedSetter(std::string key, absl::StatusOr<T> (*parse)(std::string_view),
                    std::function<T&(CrawlConfig&)> field) {
  return [key, parse, field](const YAML::Node& n, CrawlConfig& c) -> absl::Status {
    std::string text;
    try {
      text = n.as<std::string>();
    } catch (const YAML::Exception& e) {
      return Bad(key, e.what());
    }
    absl::StatusOr<T> value = parse(text);
    if (!value.ok()) return Bad(key, std::string(value.status().message()));
    field(c) = *std::move(value);
    return absl::OkStatus();
  };
}

absl::StatusOr<absl::Duration> ParseNonNegativeDuration(std::string_view text) {
  absl::Duration d;
  if (!absl::ParseDuration(absl::string_view(text.data(), text.size()), &d) ||
      d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a duration: \"", std::string(text), "\" (e.g. 50ms, 2s, 1m)"));
  }
  return d;
}

Setter DurationSetter(std::string key, std::function<absl::Duration&(CrawlConfig&)> field) {
  return ParsedSetter<absl::Duration>(std::move(key), ParseNonNegativeDuration, std::move(field));
}

Setter VisitRateSetter(std::string key, std::function<double&(CrawlConfig&)> field) {
  return ParsedSetter<double>(std::move(key), ParseVisitRate, std::move(field));
}

const std::map<std::string, Setter>& Keys() {
  static const auto* const keys = new std::map<std::string, Setter>{
      {"name", Nested<std::string>(
                   "name", [](CrawlConfig& c) -> std::string& { return c.collection.name; })},
      {"seeds", Nested<std::vector<std::string>>("seeds",
                                                 [](CrawlConfig& c) -> std::vector<std::string>& {
                                                   return c.collection.seeds;
                                                 })},
      {"data_dir", Scalar("data_dir", &CrawlConfig::data_dir)},
      {"warc_dir", Scalar("warc_dir", &CrawlConfig::warc_dir)},
      {"crawl_log", Scalar("crawl_log", &CrawlConfig::crawl_log)},
      {"stats_json", Scalar("stats_json", &CrawlConfig::stats_json)},
      {"user_agent", Scalar("user_agent", &CrawlConfig::user_agent)},
      {"obey_robots", Scalar("obey_robots", &CrawlConfig::obey_robots)},
      {"queue_sitemaps", Scalar("queue_sitemaps", &CrawlConfig::queue_sitemaps)},
      {"follow_embeds", Scalar("follow_embeds", &CrawlConfig::follow_embeds)},
      {"max_in_flight", Scalar("max_in_flight", &CrawlConfig::max_in_flight)},
      {"workers", Scalar("workers", &CrawlConfig::workers)},
      {"timeout",
       DurationSetter("timeout", [](CrawlConfig& c) -> absl::Duration& { return c.timeout; })},
      {"max_body_bytes", Scalar("max_body_bytes", &CrawlConfig::max_body_bytes)},
      {"allow_networks", Scalar("allow_networks", &CrawlConfig::allow_networks)},
      {"connect_to", Scalar("connect_to", &CrawlConfig::connect_to)},
      {"warc_max_file_bytes", Scalar("warc_max_file_bytes", &CrawlConfig::warc_max_file_bytes)},
      {"progress_interval",
       DurationSetter("progress_interval",
                      [](CrawlConfig& c) -> absl::Duration& { return c.progress_interval; })},
      {"store_bodies",
       Nested<bool>("store_bodies",
                    [](CrawlConfig& c) -> bool& { return c.collection.store_bodies; })},
      {"fingerprints",
       Nested<bool>("fingerprints",
                    [](CrawlConfig& c) -> bool& { return c.collection.fingerprints; })},
      {"store_content_types",
       Nested<std::vector<std::string>>("store_content_types",
                                        [](CrawlConfig& c) -> std::vector<std::string>& {
                                          return c.collection.store_content_types;
                                        })},
      // scope
      {"allow_host_suffixes",
       Nested<std::vector<std::string>>("allow_host_suffixes",
                                        [](CrawlConfig& c) -> std::vector<std::string>& {
                                          return c.collection.scope.allowed_host_suffixes;
                                        })},
      {"same_site_only",
       Nested<bool>("same_site_only",
                    [](CrawlConfig& c) -> bool& { return c.collection.scope.same_site_only; })},
      {"include", Nested<std::vector<std::string>>("include",
                                                   [](CrawlConfig& c) -> std::vector<std::string>& {
                                                     return c.collection.scope.include_patterns;
                                                   })},
      {"exclude", Nested<std::vector<std::string>>("exclude",
                                                   [](CrawlConfig& c) -> std::vector<std::string>& {
                                                     return c.collection.scope.exclude_patterns;
                                                   })},
      {"max_depth",
       [](const YAML::Node& n, CrawlConfig& c) -> absl::
                                                   Status {
                                                     try {
                                                       c.collection.scope.max_depth =
                                                           n.as<uint32_t>();
                                                     } catch (const YAML::Exception& e) {
                                                       return Bad("max_depth", e.what());
                                                     }
                                                     return absl::OkStatus();
                                                   }},
      // limits
      {"max_pages",
       Nested<uint64_t>("max_pages",
                        [](CrawlConfig& c) -> uint64_t& { return c.collection.limits.max_pages; })},
      {"max_pages_per_host", Nested<uint64_t>("max_pages_per_host",
                                              [](CrawlConfig& c) -> uint64_t& {
                                                return c.collection.limits.max_pages_per_host;
                                              })},
      // politeness
      {"min_delay", DurationSetter("min_delay",
                                   [](CrawlConfig& c) -> absl::Duration& {
                                     return c.collection.politeness.min_delay;
                                   })},
      {"max_delay", DurationSetter("max_delay",
                                   [](CrawlConfig& c) -> absl::Duration& {
                                     return c.collection.politeness.max_delay;
                                   })},
      {"delay_factor", Nested<double>("delay_factor",
                                      [](CrawlConfig& c) -> double& {
                                        return c.collection.politeness.delay_factor;
                                      })},
      {"max_crawl_delay", DurationSetter("max_crawl_delay",
                                         [](CrawlConfig& c) -> absl::Duration& {
                                           return c.collection.politeness.max_crawl_delay;
                                         })},
      {"max_connections_per_host",
       Nested<int>("max_connections_per_host",
                   [](CrawlConfig& c) -> int& {
                     return c.collection.politeness.max_connections_per_host;
                   })},
      {"run_for",
       DurationSetter("run_for", [](CrawlConfig& c) -> absl::Duration& { return c.run_for; })},
      // re-visiting
      {"revisit",
       Nested<bool>("revisit",
                    [](CrawlConfig& c) -> bool& { return c.collection.revisit.options.enabled; })},
      {"revisit_policy", Nested<std::string>("revisit_policy",
                                             [](CrawlConfig& c) -> std::string& {
                                               return c.collection.revisit.options.policy;
                                             })},
      {"revisit_budget", VisitRateSetter("revisit_budget",
                                         [](CrawlConfig& c) -> double& {
                                           return c.collection.revisit.budget_visits_per_day;
                                         })},
      {"revisit_min_interval", DurationSetter("revisit_min_interval",
                                              [](CrawlConfig& c) -> absl::Duration& {
                                                return c.collection.revisit.options.min_interval;
                                              })},
      {"revisit_max_interval", DurationSetter("revisit_max_interval",
                                              [](CrawlConfig& c) -> absl::Duration& {
                                                return c.collection.revisit.options.max_interval;
                                              })},
      {"revisit_min_visits", VisitRateSetter("revisit_min_visits",
                                             [](CrawlConfig& c) -> double& {
                                               return c.collection.revisit.options.policy_options
                                                   .optimal.min_visits_per_day;
                                             })},
      {"revisit_tune_interval",
       DurationSetter("revisit_tune_interval",
                      [](CrawlConfig& c) -> absl::Duration& { return c.revisit_tune_interval; })},
      // retries
      {"max_attempts", Scalar("max_attempts", &CrawlConfig::max_attempts)},
      {"retry_backoff",
       DurationSetter("retry_backoff",
                      [](CrawlConfig& c) -> absl::Duration& { return c.retry_backoff; })},
      {"retry_backoff_max",
       DurationSetter("retry_backoff_max",
                      [](CrawlConfig& c) -> absl::Duration& { return c.retry_backoff_max; })},
      {"robots_retry_after",
       DurationSetter("robots_retry_after",
                      [](CrawlConfig& c) -> absl::Duration& { return c.robots_retry_after; })},
      {"change_threshold_bits",
       Nested<int>("change_threshold_bits",
                   [](CrawlConfig& c) -> int& {
                     return c.collection.revisit.options.change_threshold_bits;
                   })},
  };
  return *keys;
}

}  // namespace

absl::StatusOr<double> ParseVisitRate(std::string_view text) {
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  const size_t slash = trimmed.find('/');
  const absl::string_view number = absl::StripAsciiWhitespace(trimmed.substr(0, slash));
  const absl::string_view unit = slash == absl::string_view::npos
                                     ? absl::string_view("d")
                                     : absl::StripAsciiWhitespace(trimmed.substr(slash + 1));
  double value = 0;
  double per_day = 0;
  if (unit == "s") per_day = 86400;
  if (unit == "min") per_day = 1440;
  if (unit == "h") per_day = 24;
  if (unit == "d") per_day = 1;
  if (!absl::SimpleAtod(number, &value) || !(value > 0) || !std::isfinite(value) || per_day == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a visit rate: \"", std::string(text), "\" (e.g. 5/s, 300/min, 20/h, 1000/d)"));
  }
  return value * per_day;
}

std::string RobotsProductToken(std::string_view user_agent) {
  size_t end = 0;
  while (end < user_agent.size() && user_agent[end] != '/' && user_agent[end] != ' ' &&
         user_agent[end] != '(') {
    ++end;
  }
  std::string token(user_agent.substr(0, end));
  absl::AsciiStrToLower(&token);
  return token;
}

absl::Status LoadCrawlConfigYaml(const std::string& path, CrawlConfig& config) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("config file ", path, ": ", e.what()));
  }
  if (root.IsNull()) return absl::OkStatus();  // an empty file changes nothing
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(absl::StrCat("config file ", path, ": not a mapping"));
  }
  const auto& keys = Keys();
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config file ", path, ": keys must be plain names"));
    }
    const std::string key = entry.first.as<std::string>();
    auto it = keys.find(key);
    if (it == keys.end()) {
      std::vector<std::string> known;
      for (const auto& [k, unused] : keys) known.push_back(k);
      return absl::InvalidArgumentError(
          absl::StrCat("config file ", path, ": unknown key \"", key,
                       "\"; known keys: ", absl::StrJoin(known, ", ")));
    }
    if (absl::Status s = it->second(entry.second, config); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("config file ", path, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status CrawlConfig::Finalize() {
  if (data_dir.empty()) return absl::InvalidArgumentError("--data-dir is required");
  if (warc_dir.empty()) warc_dir = (std::filesystem::path(data_dir) / "warc").string();
  if (crawl_log.empty()) crawl_log = (std::filesystem::path(data_dir) / "crawl.log").string();
  if (user_agent.empty()) return absl::InvalidArgumentError("user_agent must not be empty");
  if (RobotsProductToken(user_agent).empty()) {
    return absl::InvalidArgumentError("user_agent must start with a product token");
  }
  if (max_in_flight < 1 || max_in_flight > 100'000) {
    return absl::InvalidArgumentError("max_in_flight must be in [1, 100000]");
  }
  if (workers < 1 || workers > 256)
    return absl::InvalidArgumentError("workers must be in [1, 256]");
  if (timeout <= absl::ZeroDuration()) return absl::InvalidArgumentError("timeout must be > 0");
  if (max_body_bytes < 1024) return absl::InvalidArgumentError("max_body_bytes must be >= 1024");
  if (warc_max_file_bytes < 4096) {
    return absl::InvalidArgumentError("warc_max_file_bytes must be >= 4096");
  }
  if (run_for <= absl::ZeroDuration()) return absl::InvalidArgumentError("run_for must be > 0");
  if (revisit_tune_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("revisit_tune_interval must be > 0");
  }
  if (max_attempts < 1 || max_attempts > 100) {
    return absl::InvalidArgumentError("max_attempts must be in [1, 100]");
  }
  if (retry_backoff <= absl::ZeroDuration() || retry_backoff_max < retry_backoff) {
    return absl::InvalidArgumentError(
        "retry_backoff must be > 0 and retry_backoff_max >= retry_backoff");
  }
  if (robots_retry_after < absl::Minutes(1) || robots_retry_after > absl::Hours(24)) {
    // RFC 9309 §2.4: no cached verdict is used for more than 24 hours.
    return absl::InvalidArgumentError("robots_retry_after must be in [1m, 24h]");
  }
  for (const std::string& cidr : allow_networks) {
    if (absl::Status s = net::CidrBlock::Parse(cidr).status(); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("allow_networks: ", s.message()));
    }
  }
  return collection.Validate();
}

}  // namespace crawler::standalone
