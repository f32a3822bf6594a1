// Standalone crawl configuration and reporting tests: the YAML loader (every key, unknown keys,
// wrong types, durations), Finalize's defaults and validation, the robots.txt product token
// (RFC 9309 §2.2.1), the crawl log line format, the running totals, and the JSON summary, which
// is checked with a small independent JSON parser (RFC 8259).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "lib/json/json_string.h"
#include "services/collections/shares.h"
#include "services/fetcher/collection_options.h"
#include "services/fetcher/crawl_report.h"
#include "services/fetcher/fetch_event.h"
#include "services/frontier/url_record.h"
#include "services/standalone/crawl_config.h"
#include "services/standalone/standalone_crawl.h"
#include "tests/unit/common/documented_keys.h"

namespace crawler::standalone {
namespace {

using fetcher::CrawlLog;
using fetcher::CrawlStats;
using fetcher::CrawlTotals;
using fetcher::ObserverList;
using fetcher::SummaryJson;

namespace fs = std::filesystem;
using frontier::OutcomeClass;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / absl::StrCat("standalone_test_", ::getpid(), "_",
                                                     info->test_suite_name(), "_", info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& content) const {
    const std::string path = (path_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ------------------------------------------------------------------------- a tiny JSON parser

// Enough of RFC 8259 to check that a document is valid and to look values up: objects, arrays,
// strings with every escape, numbers, literals. Fails on anything else, trailing garbage
// included.
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;
  std::vector<std::string> keys_in_order;
};

class JsonParser {
 public:
  static std::optional<Json> Parse(std::string_view text) {
    JsonParser p(text);
    std::optional<Json> v = p.Value();
    p.Space();
    if (!v.has_value() || p.pos_ != text.size()) return std::nullopt;
    return v;
  }

 private:
  explicit JsonParser(std::string_view text) : s_(text) {}

  void Space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    Space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::optional<Json> Value() {
    if (++depth_ > 64) return std::nullopt;
    Space();
    if (pos_ >= s_.size()) return std::nullopt;
    Json v;
    const char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.type = Json::Type::kObject;
      if (!Eat('}')) {
        do {
          Space();
          std::optional<std::string> key = String();
          if (!key.has_value() || !Eat(':')) return std::nullopt;
          std::optional<Json> member = Value();
          if (!member.has_value() || v.object.count(*key) != 0) return std::nullopt;
          v.keys_in_order.push_back(*key);
          v.object.emplace(*key, *std::move(member));
        } while (Eat(','));
        if (!Eat('}')) return std::nullopt;
      }
    } else if (c == '[') {
      ++pos_;
      v.type = Json::Type::kArray;
      if (!Eat(']')) {
        do {
          std::optional<Json> item = Value();
          if (!item.has_value()) return std::nullopt;
          v.array.push_back(*std::move(item));
        } while (Eat(','));
        if (!Eat(']')) return std::nullopt;
      }
    } else if (c == '"') {
      std::optional<std::string> str = String();
      if (!str.has_value()) return std::nullopt;
      v.type = Json::Type::kString;
      v.string = *std::move(str);
    } else if (Literal("true") || Literal("false")) {
      v.type = Json::Type::kBool;
      v.boolean = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u';
    } else if (Literal("null")) {
      v.type = Json::Type::kNull;
    } else {
      // number = [ minus ] int [ frac ] [ exp ]
      const size_t start = pos_;
      if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
      if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_]))) return std::nullopt;
      if (s_[pos_] == '0') {
        ++pos_;
      } else {
        while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      }
      if (pos_ < s_.size() && s_[pos_] == '.') {
        ++pos_;
        if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_]))) {
          return std::nullopt;
        }
        while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      }
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        ++pos_;
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_]))) {
          return std::nullopt;
        }
        while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      }
      v.type = Json::Type::kNumber;
      v.number = std::stod(std::string(s_.substr(start, pos_ - start)));
    }
    --depth_;
    return v;
  }

  std::optional<std::string> String() {
    if (pos_ >= s_.size() || s_[pos_] != '"') return std::nullopt;
    ++pos_;
    std::string out;
    while (pos_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_++]);
      if (c == '"') return out;
      if (c < 0x20) return std::nullopt;  // control characters must be escaped
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= s_.size()) return std::nullopt;
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return std::nullopt;
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = s_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= h - '0';
            else if (h >= 'a' && h <= 'f') code |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') code |= h - 'A' + 10;
            else return std::nullopt;
          }
          if (code >= 0x80) return std::nullopt;  // the tests only need ASCII escapes
          out += static_cast<char>(code);
          break;
        }
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

TEST(JsonParserSelfTest, AcceptsValidAndRejectsInvalid) {
  std::optional<Json> ok =
      JsonParser::Parse(R"({"a": [1, -2.5e3, true, null, "x\"\u0001"], "b": {}})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->object.at("a").array.at(1).number, -2500);
  EXPECT_TRUE(ok->object.at("a").array.at(2).boolean);
  EXPECT_EQ(ok->object.at("a").array.at(4).string, "x\"\x01");
  for (const char* bad : {"", "{", R"({"a": 1,})", R"({"a" 1})", "{} x", R"({"a": 01})",
                          "{\"a\": \"tab\there\"}", R"({"a": 1, "a": 2})", "[1 2]", "nul"}) {
    EXPECT_FALSE(JsonParser::Parse(bad).has_value()) << bad;
  }
}

// --------------------------------------------------------------------------------- YAML config

const char kFullYaml[] = R"yaml(# every key
name: nightly
seeds:
  - https://a.test/
  - https://b.test/start
data_dir: /var/crawl
warc_dir: /var/warc
crawl_log: /var/log/crawl.log
stats_json: /var/crawl/stats.json
user_agent: "ExampleBot/2.0 (+https://example.org/bot)"
obey_robots: false
sitemap_discovery: robots
sitemap_seeds: [https://a.test/sitemap-news.xml]
follow_embeds: true
max_in_flight: 64
workers: 3
timeout: 45s
max_body_bytes: 1048576
allow_networks: [127.0.0.0/8, "::1/128"]
connect_to: "127.0.0.1:8080"
warc_max_file_bytes: 5000000
progress_interval: 500ms
store_bodies: false
fingerprints: false
store_content_types: [text/html, application/pdf]
allow_host_suffixes: [a.test, b.test]
same_site_only: true
include: ["^https://a\\.test/"]
exclude: ["\\?replytocom="]
max_depth: 7
max_pages: 1000
max_pages_per_host: 100
min_delay: 250ms
max_delay: 2m
delay_factor: 1.5
max_crawl_delay: 10s
max_connections_per_host: 2
run_for: 2h
revisit: true
revisit_policy: uniform
revisit_budget: 20/h
revisit_min_interval: 30s
revisit_max_interval: 48h
revisit_min_visits: 1/d
revisit_tune_interval: 20s
change_threshold_bits: 9
max_attempts: 5
retry_backoff: 30s
retry_backoff_max: 2h
robots_retry_after: 10m
)yaml";

TEST(LoadCrawlConfigYaml, EveryKeyIsApplied) {
  TempDir dir;
  CrawlConfig c;
  ASSERT_TRUE(LoadCrawlConfigYaml(dir.Write("crawl.yaml", kFullYaml), c).ok());
  EXPECT_EQ(c.collection.name, "nightly");
  EXPECT_THAT(c.collection.seeds, ElementsAre("https://a.test/", "https://b.test/start"));
  EXPECT_EQ(c.data_dir, "/var/crawl");
  EXPECT_EQ(c.warc_dir, "/var/warc");
  EXPECT_EQ(c.crawl_log, "/var/log/crawl.log");
  EXPECT_EQ(c.stats_json, "/var/crawl/stats.json");
  EXPECT_EQ(c.user_agent, "ExampleBot/2.0 (+https://example.org/bot)");
  EXPECT_FALSE(c.fetcher.obey_robots);
  EXPECT_EQ(c.collection.sitemap_discovery, "robots");
  EXPECT_THAT(c.collection.sitemap_seeds, ElementsAre("https://a.test/sitemap-news.xml"));
  EXPECT_TRUE(c.fetcher.processing.follow_embeds);
  EXPECT_EQ(c.fetcher.max_in_flight, 64u);
  EXPECT_EQ(c.fetcher.worker_threads, 3);
  EXPECT_EQ(c.fetcher.http.total_timeout, absl::Seconds(45));
  EXPECT_EQ(c.fetcher.http.max_body_bytes, 1048576u);
  EXPECT_THAT(c.allow_networks, ElementsAre("127.0.0.0/8", "::1/128"));
  EXPECT_EQ(c.fetcher.http.connect_to, "127.0.0.1:8080");
  EXPECT_EQ(c.warc_max_file_bytes, 5000000u);
  EXPECT_EQ(c.progress.interval, absl::Milliseconds(500));
  EXPECT_FALSE(c.collection.store_bodies);
  EXPECT_FALSE(c.collection.fingerprints);
  EXPECT_THAT(c.collection.store_content_types, ElementsAre("text/html", "application/pdf"));
  EXPECT_THAT(c.collection.scope.allowed_host_suffixes, ElementsAre("a.test", "b.test"));
  EXPECT_TRUE(c.collection.scope.same_site_only);
  EXPECT_THAT(c.collection.scope.include_patterns, ElementsAre("^https://a\\.test/"));
  EXPECT_THAT(c.collection.scope.exclude_patterns, ElementsAre("\\?replytocom="));
  EXPECT_EQ(c.collection.scope.max_depth, 7u);
  EXPECT_EQ(c.collection.limits.max_pages, 1000u);
  EXPECT_EQ(c.collection.limits.max_pages_per_host, 100u);
  EXPECT_EQ(c.collection.politeness.min_delay, absl::Milliseconds(250));
  EXPECT_EQ(c.collection.politeness.max_delay, absl::Minutes(2));
  EXPECT_DOUBLE_EQ(c.collection.politeness.delay_factor, 1.5);
  EXPECT_EQ(c.collection.politeness.max_crawl_delay, absl::Seconds(10));
  EXPECT_EQ(c.collection.politeness.max_connections_per_host, 2);
  EXPECT_EQ(c.run_for, absl::Hours(2));
  EXPECT_TRUE(c.collection.revisit.options.enabled);
  EXPECT_EQ(c.collection.revisit.options.policy, "uniform");
  EXPECT_DOUBLE_EQ(c.collection.revisit.budget_visits_per_day, 480);
  EXPECT_EQ(c.collection.revisit.options.min_interval, absl::Seconds(30));
  EXPECT_EQ(c.collection.revisit.options.max_interval, absl::Hours(48));
  EXPECT_DOUBLE_EQ(c.collection.revisit.options.policy_options.optimal.min_visits_per_day, 1);
  EXPECT_EQ(c.revisit_tuner.interval, absl::Seconds(20));
  EXPECT_EQ(c.collection.revisit.options.change_threshold_bits, 9);
  EXPECT_EQ(c.frontier.max_attempts, 5u);
  EXPECT_EQ(c.frontier.retry_backoff_initial, absl::Seconds(30));
  EXPECT_EQ(c.frontier.retry_backoff_max, absl::Hours(2));
  EXPECT_EQ(c.fetcher.robots_policy.unreachable_retry_after, absl::Minutes(10));
}

TEST(ParseVisitRate, UnitsAreConvertedToVisitsPerDay) {
  EXPECT_DOUBLE_EQ(ParseVisitRate("5/s").value(), 432000);
  EXPECT_DOUBLE_EQ(ParseVisitRate("300/min").value(), 432000);
  EXPECT_DOUBLE_EQ(ParseVisitRate("20/h").value(), 480);
  EXPECT_DOUBLE_EQ(ParseVisitRate("1000/d").value(), 1000);
  EXPECT_DOUBLE_EQ(ParseVisitRate(" 0.5 / d ").value(), 0.5);
  EXPECT_DOUBLE_EQ(ParseVisitRate("240").value(), 240);
  for (const char* bad : {"", "0/s", "-1/s", "5/week", "five/s", "5/", "inf/s", "nan"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<double> rate = ParseVisitRate(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(rate.status())) << rate.status();
  }
}

TEST(LoadCrawlConfigYaml, AbsentKeysKeepTheirValues) {
  TempDir dir;
  CrawlConfig c;
  c.fetcher.worker_threads = 9;
  c.data_dir = "/from/flags";
  const CrawlConfig defaults;
  ASSERT_TRUE(LoadCrawlConfigYaml(dir.Write("c.yaml", "max_pages: 5\n"), c).ok());
  EXPECT_EQ(c.collection.limits.max_pages, 5u);
  EXPECT_EQ(c.fetcher.worker_threads, 9);
  EXPECT_EQ(c.data_dir, "/from/flags");
  EXPECT_EQ(c.user_agent, defaults.user_agent);
  EXPECT_EQ(c.fetcher.http.total_timeout, defaults.fetcher.http.total_timeout);
}

TEST(LoadCrawlConfigYaml, EmptyFileChangesNothing) {
  TempDir dir;
  CrawlConfig c;
  c.fetcher.worker_threads = 5;
  EXPECT_TRUE(LoadCrawlConfigYaml(dir.Write("empty.yaml", ""), c).ok());
  EXPECT_TRUE(LoadCrawlConfigYaml(dir.Write("comment.yaml", "# nothing here\n"), c).ok());
  EXPECT_EQ(c.fetcher.worker_threads, 5);
}

TEST(LoadCrawlConfigYaml, MissingFileIsNotFound) {
  TempDir dir;
  CrawlConfig c;
  absl::Status s = LoadCrawlConfigYaml(dir.Path("absent.yaml"), c);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("absent.yaml"));
}

TEST(LoadCrawlConfigYaml, UnknownKeyIsRejectedNamingItAndTheKnownKeys) {
  TempDir dir;
  CrawlConfig c;
  absl::Status s = LoadCrawlConfigYaml(dir.Write("c.yaml", "workers: 2\nmax_pagez: 10\n"), c);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  const std::string message(s.message());
  EXPECT_THAT(message, HasSubstr("\"max_pagez\""));
  EXPECT_THAT(message, HasSubstr("known keys"));
  for (const char* key : {"max_pages", "seeds", "min_delay", "user_agent", "allow_networks",
                          "max_connections_per_host", "store_content_types"}) {
    EXPECT_THAT(message, HasSubstr(key));
  }
}

// queue_sitemaps was replaced by sitemap_discovery: an old file gets a clear answer naming its
// replacement, whatever the value, and so does the old flag (FlagBinding applies the same key).
TEST(LoadCrawlConfigYaml, RetiredQueueSitemapsNamesItsReplacement) {
  TempDir dir;
  for (const char* yaml : {"queue_sitemaps: true\n", "queue_sitemaps: false\n"}) {
    SCOPED_TRACE(yaml);
    CrawlConfig c;
    absl::Status s = LoadCrawlConfigYaml(dir.Write("q.yaml", yaml), c);
    ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("\"queue_sitemaps\""));
    EXPECT_THAT(std::string(s.message()), HasSubstr("replaced by sitemap_discovery"));
  }
}

struct BadValueCase {
  std::string yaml;
  std::string key;  // must be named in the error
};

TEST(LoadCrawlConfigYaml, WrongTypesAndBadValuesNameTheKey) {
  const std::vector<BadValueCase> cases = {
      {"workers: many\n", "workers"},
      {"workers: 2.5\n", "workers"},
      {"max_in_flight: [1, 2]\n", "max_in_flight"},
      {"max_in_flight: -5\n", "max_in_flight"},
      {"max_pages: -1\n", "max_pages"},
      {"max_depth: -1\n", "max_depth"},
      {"max_depth: deep\n", "max_depth"},
      {"obey_robots: perhaps\n", "obey_robots"},
      {"seeds: {a: b}\n", "seeds"},
      {"seeds: [[http://a.test/]]\n", "seeds"},
      {"delay_factor: fast\n", "delay_factor"},
      {"user_agent: [a, b]\n", "user_agent"},
      {"timeout: fast\n", "timeout"},
      {"timeout: 10\n", "timeout"},  // a duration needs its unit
      {"timeout: -1s\n", "timeout"},
      {"timeout: [1s]\n", "timeout"},
      {"min_delay: 1 second\n", "min_delay"},
      {"progress_interval: 5x\n", "progress_interval"},
      {"max_crawl_delay: ''\n", "max_crawl_delay"},
  };
  TempDir dir;
  for (const BadValueCase& c : cases) {
    SCOPED_TRACE(c.yaml);
    CrawlConfig config;
    absl::Status s = LoadCrawlConfigYaml(dir.Write("bad.yaml", c.yaml), config);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("\"" + c.key + "\""));
  }
}

TEST(LoadCrawlConfigYaml, DurationsTakeUnits) {
  struct Case {
    std::string text;
    absl::Duration want;
  };
  const std::vector<Case> cases = {
      {"50ms", absl::Milliseconds(50)}, {"2s", absl::Seconds(2)},
      {"1.5s", absl::Milliseconds(1500)}, {"1m", absl::Minutes(1)},
      {"1h30m", absl::Minutes(90)}, {"0", absl::ZeroDuration()},
  };
  TempDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    CrawlConfig config;
    ASSERT_TRUE(
        LoadCrawlConfigYaml(dir.Write("d.yaml", "min_delay: " + c.text + "\n"), config).ok());
    EXPECT_EQ(config.collection.politeness.min_delay, c.want);
  }
}

TEST(LoadCrawlConfigYaml, MalformedOrNonMappingDocumentsAreInvalid) {
  TempDir dir;
  for (const char* text : {"- a\n- b\n", "just a string\n", "workers: [1, 2\n", "a: b: c\n"}) {
    SCOPED_TRACE(text);
    CrawlConfig c;
    absl::Status s = LoadCrawlConfigYaml(dir.Write("m.yaml", text), c);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  }
}

// A key that is not a scalar (YAML allows "? [a, b]") is an unknown key, not a crash.
TEST(LoadCrawlConfigYaml, NonScalarKeyIsInvalid) {
  TempDir dir;
  CrawlConfig c;
  absl::Status s = LoadCrawlConfigYaml(dir.Write("k.yaml", "? [a, b]\n: 1\n"), c);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

// ------------------------------------------------------------------------------------ Finalize

CrawlConfig Valid() {
  CrawlConfig c;
  c.data_dir = "/data/crawl";
  c.collection.seeds = {"http://a.test/"};
  return c;
}

TEST(CrawlConfigFinalize, SitemapDiscoveryTakesItsThreeValuesOnly) {
  for (const char* good : {"robots", "robots+well-known", "off"}) {
    CrawlConfig c = Valid();
    c.collection.sitemap_discovery = good;
    EXPECT_TRUE(c.Finalize().ok()) << good;
  }
  CrawlConfig c = Valid();
  EXPECT_EQ(c.collection.sitemap_discovery, "robots+well-known");  // on by default
  c.collection.sitemap_discovery = "well-known";
  absl::Status s = c.Finalize();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("sitemap_discovery"));
}

// A focused collection's leases are the bandit's pulls: sitemaps are not looked for, and none
// may be given.
TEST(CrawlConfigFinalize, FocusTurnsSitemapDiscoveryOffAndRefusesSitemapSeeds) {
  CrawlConfig c = Valid();
  c.collection.focus.target = "external_links";
  c.collection.limits.max_pages = 100;
  ASSERT_TRUE(c.Finalize().ok());
  EXPECT_EQ(c.collection.sitemap_discovery, "off");
  c.collection.sitemap_seeds = {"http://a.test/sitemap.xml"};
  absl::Status s = c.Finalize();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("sitemap_seeds"));
}

// A crawl may start from sitemaps alone: they count as seeds.
TEST(CrawlConfigFinalize, SitemapSeedsAloneAreEnough) {
  CrawlConfig c = Valid();
  c.collection.seeds.clear();
  EXPECT_FALSE(c.Finalize().ok());
  c.collection.sitemap_seeds = {"http://a.test/sitemap.xml"};
  EXPECT_TRUE(c.Finalize().ok());
}

TEST(CrawlConfigFinalize, DerivedPathsDefaultUnderDataDir) {
  CrawlConfig c = Valid();
  ASSERT_TRUE(c.Finalize().ok());
  EXPECT_EQ(c.warc_dir, "/data/crawl/warc");
  EXPECT_EQ(c.crawl_log, "/data/crawl/crawl.log");
  EXPECT_EQ(c.stats_json, "");

  CrawlConfig explicit_paths = Valid();
  explicit_paths.warc_dir = "/elsewhere/warc";
  explicit_paths.crawl_log = "/elsewhere/log";
  ASSERT_TRUE(explicit_paths.Finalize().ok());
  EXPECT_EQ(explicit_paths.warc_dir, "/elsewhere/warc");
  EXPECT_EQ(explicit_paths.crawl_log, "/elsewhere/log");
}

TEST(CrawlConfigFinalize, InvalidSettingsAreNamed) {
  struct Case {
    std::string name;
    std::function<void(CrawlConfig&)> change;
    std::string must_mention;
  };
  const std::vector<Case> cases = {
      {"no data dir", [](CrawlConfig& c) { c.data_dir.clear(); }, "data-dir"},
      {"empty user agent", [](CrawlConfig& c) { c.user_agent.clear(); }, "user_agent"},
      {"no product token", [](CrawlConfig& c) { c.user_agent = "/1.0"; }, "user_agent"},
      {"leading space", [](CrawlConfig& c) { c.user_agent = " Bot/1.0"; }, "user_agent"},
      {"max_in_flight 0", [](CrawlConfig& c) { c.fetcher.max_in_flight = 0; }, "max_in_flight"},
      {"max_in_flight huge", [](CrawlConfig& c) { c.fetcher.max_in_flight = 100'001; },
       "max_in_flight"},
      {"workers 0", [](CrawlConfig& c) { c.fetcher.worker_threads = 0; }, "workers"},
      {"workers 257", [](CrawlConfig& c) { c.fetcher.worker_threads = 257; }, "workers"},
      {"timeout 0", [](CrawlConfig& c) { c.fetcher.http.total_timeout = absl::ZeroDuration(); },
       "timeout"},
      {"tiny body cap", [](CrawlConfig& c) { c.fetcher.http.max_body_bytes = 100; },
       "max_body_bytes"},
      {"no seeds", [](CrawlConfig& c) { c.collection.seeds.clear(); }, "seed"},
      {"zero max pages", [](CrawlConfig& c) { c.collection.limits.max_pages = 0; }, "max_pages"},
      {"bad politeness",
       [](CrawlConfig& c) { c.collection.politeness.max_connections_per_host = 0; },
       "max_connections_per_host"},
      {"run_for 0", [](CrawlConfig& c) { c.run_for = absl::ZeroDuration(); }, "run_for"},
      {"max_attempts 0", [](CrawlConfig& c) { c.frontier.max_attempts = 0; }, "max_attempts"},
      {"max_attempts 101", [](CrawlConfig& c) { c.frontier.max_attempts = 101; }, "max_attempts"},
      {"retry_backoff 0",
       [](CrawlConfig& c) { c.frontier.retry_backoff_initial = absl::ZeroDuration(); },
       "retry_backoff"},
      {"retry backoffs reversed",
       [](CrawlConfig& c) {
         c.frontier.retry_backoff_initial = absl::Hours(2);
         c.frontier.retry_backoff_max = absl::Hours(1);
       },
       "retry_backoff_max"},
      {"robots_retry_after 30s",
       [](CrawlConfig& c) { c.fetcher.robots_policy.unreachable_retry_after = absl::Seconds(30); },
       "robots_retry_after"},
      {"robots_retry_after 25h",
       [](CrawlConfig& c) { c.fetcher.robots_policy.unreachable_retry_after = absl::Hours(25); },
       "robots_retry_after"},
      {"revisit without budget",
       [](CrawlConfig& c) { c.collection.revisit.options.enabled = true; }, "budget"},
      {"revisit with a page cap",
       [](CrawlConfig& c) {
         c.collection.revisit.options.enabled = true;
         c.collection.revisit.budget_visits_per_day = 100;
         c.collection.limits.max_pages = 10;
       },
       "max_pages"},
      {"unknown revisit policy",
       [](CrawlConfig& c) {
         c.collection.revisit.options.enabled = true;
         c.collection.revisit.budget_visits_per_day = 100;
         c.collection.revisit.options.policy = "often";
       },
       "often"},
      {"revisit intervals reversed",
       [](CrawlConfig& c) {
         c.collection.revisit.options.enabled = true;
         c.collection.revisit.budget_visits_per_day = 100;
         c.collection.revisit.options.min_interval = absl::Hours(2);
         c.collection.revisit.options.max_interval = absl::Hours(1);
       },
       "min_interval"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    CrawlConfig c = Valid();
    tc.change(c);
    absl::Status s = c.Finalize();
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(tc.must_mention));
  }
}

// Finalize "checks everything" (crawl_config.h): settings that the crawl would only reject once
// it has started (creating the state directory first) are rejected here, named.
TEST(CrawlConfigFinalize, SettingsRejectedLaterAreRejectedHereToo) {
  {
    CrawlConfig c = Valid();
    c.warc_max_file_bytes = 100;  // WarcWriter::Open requires >= 4096
    absl::Status s = c.Finalize();
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("warc_max_file_bytes"));
  }
  {
    CrawlConfig c = Valid();
    c.allow_networks = {"127.0.0.0/8", "not-a-cidr"};
    absl::Status s = c.Finalize();
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("not-a-cidr"));
  }
}

TEST(CrawlConfigFinalize, BoundaryValuesAreAccepted) {
  CrawlConfig c = Valid();
  c.fetcher.max_in_flight = 1;
  c.fetcher.worker_threads = 256;
  c.fetcher.http.max_body_bytes = 1024;
  c.fetcher.http.total_timeout = absl::Milliseconds(1);
  c.frontier.max_attempts = 100;
  c.frontier.retry_backoff_initial = c.frontier.retry_backoff_max = absl::Milliseconds(1);
  c.fetcher.robots_policy.unreachable_retry_after = absl::Hours(24);
  EXPECT_TRUE(c.Finalize().ok());
  c.frontier.max_attempts = 1;
  c.fetcher.robots_policy.unreachable_retry_after = absl::Minutes(1);
  EXPECT_TRUE(c.Finalize().ok());
}

// A host's lease lasts until its next one can arrive: one URL per connection per delay (or per
// ~5 ms without a delay) over the refill time, plus the URLs in flight; at least 4, at most 64
// unless the connections alone need more.
// A data dir records its partition count; resumed with another, its hosts move to their new
// owners (reshard_test.cc) and the partitions beyond the count go. A focused collection keeps
// its count.
TEST(StandaloneCrawlOpen, APartitionedDataDirChangesItsCountByMovingItsHosts) {
  TempDir dir;
  SystemClock clock;
  auto open = [&](int partitions, bool focused = false) {
    CrawlConfig c = Valid();
    c.data_dir = dir.Path("data");
    c.partitions = partitions;
    c.collection.store_bodies = false;
    if (focused) {
      c.collection.focus.target = "external-links";
      c.collection.limits.max_pages = 100;
    }
    return StandaloneCrawl::Open(c, clock);
  };
  {
    absl::StatusOr<std::unique_ptr<StandaloneCrawl>> first = open(3);
    ASSERT_TRUE(first.ok()) << first.status();
  }
  EXPECT_TRUE(fs::exists(dir.Path("data/state")));
  EXPECT_TRUE(fs::exists(dir.Path("data/state-1")));
  EXPECT_TRUE(fs::exists(dir.Path("data/state-2")));
  EXPECT_EQ(ReadFile(dir.Path("data/partitions")), "3\n");
  {
    absl::StatusOr<std::unique_ptr<StandaloneCrawl>> fewer = open(2);
    ASSERT_TRUE(fewer.ok()) << fewer.status();
  }
  EXPECT_EQ(ReadFile(dir.Path("data/partitions")), "2\n");
  EXPECT_FALSE(fs::exists(dir.Path("data/state-2")));
  absl::StatusOr<std::unique_ptr<StandaloneCrawl>> focused = open(4, /*focused=*/true);
  EXPECT_TRUE(absl::IsFailedPrecondition(focused.status())) << focused.status();
  EXPECT_THAT(std::string(focused.status().message()), HasSubstr("--partitions 2"));
  absl::StatusOr<std::unique_ptr<StandaloneCrawl>> again = open(2);
  EXPECT_TRUE(again.ok()) << again.status();
}

using collections::LeaseAheadPerHost;
using fetcher::BufferedTasksFor;

TEST(LeaseAheadPerHost, CoversTheRefillAtTheHostsRate) {
  auto lease_ahead = [](absl::Duration min_delay, int connections,
                        absl::Duration refill = absl::Milliseconds(100)) {
    politeness::PolitenessOptions p;
    p.min_delay = min_delay;
    p.max_connections_per_host = connections;
    return LeaseAheadPerHost(p, refill);
  };
  // The defaults: 1 s, 1 connection.
  EXPECT_EQ(LeaseAheadPerHost(politeness::PolitenessOptions{}, absl::Milliseconds(100)), 4u);
  EXPECT_EQ(lease_ahead(absl::Milliseconds(50), 1), 4u);   // 1 + 2 rounds, raised to 4
  EXPECT_EQ(lease_ahead(absl::Milliseconds(10), 1), 11u);  // 1 + 10 rounds
  EXPECT_EQ(lease_ahead(absl::Milliseconds(10), 2), 22u);
  EXPECT_EQ(lease_ahead(absl::Milliseconds(30), 1), 5u);    // 1 + ceil(3.33)
  EXPECT_EQ(lease_ahead(absl::ZeroDuration(), 2), 42u);     // one URL per ~5 ms: 1 + 20 rounds
  EXPECT_EQ(lease_ahead(absl::ZeroDuration(), 8), 64u);     // 168, capped
  EXPECT_EQ(lease_ahead(absl::ZeroDuration(), 100), 100u);  // never below the connections
  EXPECT_EQ(lease_ahead(absl::ZeroDuration(), 8, absl::ZeroDuration()), 8u);
  EXPECT_EQ(lease_ahead(absl::ZeroDuration(), 1, absl::ZeroDuration()), 4u);
}

// The fetcher holds enough leased URLs for every host its transfers can keep busy.
TEST(BufferedTasksFor, CoversTheLeasesOfEveryBusyHost) {
  auto buffered = [](size_t lease_ahead, size_t max_in_flight, int connections,
                     absl::Duration min_delay = absl::ZeroDuration()) {
    politeness::PolitenessOptions p;
    p.max_connections_per_host = connections;
    p.min_delay = min_delay;
    return BufferedTasksFor(lease_ahead, max_in_flight, p);
  };
  EXPECT_EQ(buffered(4, 256, 1), 4096u);        // 1,024: the default is the floor
  EXPECT_EQ(buffered(42, 512, 2), 256u * 42);   // the max-mode benchmark
  EXPECT_EQ(buffered(42, 513, 2), 257u * 42);   // a host for the odd transfer
  EXPECT_EQ(buffered(21, 10'000, 1), 65'536u);  // capped
  EXPECT_EQ(buffered(4, 512, 0), 4096u);        // connections below 1 count as 1
  // With a delay a slot serves 1 + delay / 5 ms hosts in turn: 512 slots x 3 x 4 URLs.
  EXPECT_EQ(buffered(4, 512, 1, absl::Milliseconds(10)), 512u * 3 * 4);
  EXPECT_EQ(buffered(4, 512, 1, absl::Milliseconds(11)), 512u * 4 * 4);  // a turn for the rest
  EXPECT_EQ(buffered(4, 512, 2, absl::Milliseconds(50)), 256u * 11 * 4);
  EXPECT_EQ(buffered(4, 64, 1, absl::Milliseconds(10)), 4096u);  // still the floor
  // The default politeness (1 s, 1 connection) at the default 256 transfers: every host of a
  // large polite crawl, up to the cap (before, 1,024 hosts at 4 URLs each).
  EXPECT_EQ(buffered(4, 256, 1, absl::Seconds(1)), 65'536u);
  EXPECT_EQ(buffered(4, 256, 1, absl::Hours(1000)), 65'536u);  // no overflow
}

// RFC 9309 §2.2.1: the product token is what User-agent lines are matched against, case-
// insensitively.
TEST(Rfc9309_2_2_1, RobotsProductTokenIsTheFirstTokenLowerCased) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ExampleBot/1.0 (+https://example.org/bot)", "examplebot"},
      {"crawler/0.1 (+https://github.com/crawler)", "crawler"},
      {"crawler", "crawler"},
      {"My-Bot_2", "my-bot_2"},
      {"FooBot (compatible)", "foobot"},
      {"FooBot(compatible)", "foobot"},
      {"/1.0", ""},
      {"", ""},
  };
  for (const auto& [ua, token] : cases) EXPECT_EQ(RobotsProductToken(ua), token) << ua;
}

// ----------------------------------------------------------------------------------- crawl log

fetcher::FetchEvent Event(const std::string& url, int status, OutcomeClass outcome,
                          uint64_t bytes = 0, const std::string& detail = "") {
  fetcher::FetchEvent e;
  e.time = absl::FromUnixMillis(1714567890123);  // 2024-05-01T12:51:30.123Z
  e.url = url;
  e.http_status = status;
  e.bytes = bytes;
  e.duration = absl::Milliseconds(42);
  e.outcome = outcome;
  e.detail = detail;
  return e;
}

TEST(CrawlLog, OneTabSeparatedLinePerEventWithSevenColumns) {
  TempDir dir;
  const std::string path = dir.Path("crawl.log");
  {
    absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    (*log)->OnFetch(Event("http://a.test/", 200, OutcomeClass::kFetched, 1234));
    fetcher::FetchEvent robots = Event("http://a.test/robots.txt", 404, OutcomeClass::kFetched,
                                       9, "allow-all");
    robots.robots_txt = true;
    (*log)->OnFetch(robots);
    (*log)->OnFetch(Event("http://a.test/x", 0, OutcomeClass::kNetworkError, 0,
                          "timeout: took\ttoo\nlong\r\n"));
    (*log)->OnFetch(Event("http://a.test/r", 301, OutcomeClass::kRedirect, 0, "http://a.test/s"));
  }
  const std::string text = ReadFile(path);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[4], "");  // every line ends with a newline
  EXPECT_EQ(lines[0], "2024-05-01T12:51:30.123Z\thttp://a.test/\t200\t1234\t42\tfetched\t");
  EXPECT_EQ(lines[1],
            "2024-05-01T12:51:30.123Z\thttp://a.test/robots.txt\t404\t9\t42\trobots\tallow-all");
  EXPECT_EQ(lines[2],
            "2024-05-01T12:51:30.123Z\thttp://a.test/x\t0\t0\t42\tnetwork_error\t"
            "timeout: took too long  ");
  EXPECT_EQ(lines[3],
            "2024-05-01T12:51:30.123Z\thttp://a.test/r\t301\t0\t42\tredirect\thttp://a.test/s");
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(std::vector<std::string>(absl::StrSplit(lines[i], '\t')).size(), 7u) << lines[i];
  }
}

// docs/configuration.md, "Crawl log": the outcome column's values are listed, each of them.
TEST(CrawlLog, EveryOutcomeIsDocumented) {
  const std::string page = crawler::testing::ReadDocPage("configuration.md");
  const size_t begin = page.find("**Crawl log**");
  const size_t end = page.find("**Summary**", begin);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string paragraph = page.substr(begin, end - begin);
  for (uint8_t v = 1; v <= frontier::kMaxOutcomeClass; ++v) {
    const std::string_view name = frontier::OutcomeClassName(static_cast<OutcomeClass>(v));
    EXPECT_THAT(paragraph, ::testing::HasSubstr("`" + std::string(name) + "`")) << name;
  }
  EXPECT_THAT(paragraph, ::testing::HasSubstr("`robots`"));  // a robots.txt fetch's line
}

TEST(CrawlLog, ReopeningAppends) {
  TempDir dir;
  const std::string path = dir.Path("crawl.log");
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    (*log)->OnFetch(Event(absl::StrCat("http://a.test/", run), 200, OutcomeClass::kFetched));
  }
  const std::string text = ReadFile(path);
  EXPECT_THAT(text, HasSubstr("http://a.test/0\t"));
  EXPECT_THAT(text, HasSubstr("http://a.test/1\t"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

// A process killed inside write() may leave a last line without its newline; the next run's
// first line must still start on a line of its own.
TEST(CrawlLog, ResumeAfterAHalfWrittenLineStartsOnANewLine) {
  TempDir dir;
  const std::string path = dir.Write("crawl.log", "2024-05-01T00:00:00.000Z\thttp://a.test/\t20");
  {
    absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    (*log)->OnFetch(Event("http://a.test/next", 200, OutcomeClass::kFetched));
  }
  std::vector<std::string> lines = absl::StrSplit(ReadFile(path), '\n');
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "2024-05-01T00:00:00.000Z\thttp://a.test/\t20");
  EXPECT_THAT(lines[1], ::testing::StartsWith("2024-05-01T12:51:30.123Z\thttp://a.test/next\t"));
  EXPECT_EQ(lines[2], "");
}

TEST(CrawlLog, ConcurrentWritersNeverInterleaveLines) {
  TempDir dir;
  const std::string path = dir.Path("crawl.log");
  {
    absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&log, t] {
        for (int i = 0; i < 200; ++i) {
          (*log)->OnFetch(Event(absl::StrCat("http://a.test/", t, "/", i, "/", std::string(300, 'x')),
                                200, OutcomeClass::kFetched));
        }
      });
    }
    for (std::thread& th : threads) th.join();
  }
  std::vector<std::string> lines = absl::StrSplit(ReadFile(path), '\n');
  ASSERT_EQ(lines.size(), 801u);
  for (size_t i = 0; i < 800; ++i) {
    ASSERT_EQ(std::vector<std::string>(absl::StrSplit(lines[i], '\t')).size(), 7u) << lines[i];
  }
}

// A worker's batch goes out in one write: its lines stay together and in order, whatever the
// other workers write meanwhile.
TEST(CrawlLog, ConcurrentBatchesKeepTheirLinesTogetherAndInOrder) {
  TempDir dir;
  const std::string path = dir.Path("crawl.log");
  constexpr int kThreads = 4;
  constexpr int kBatches = 50;
  constexpr int kBatchSize = 16;
  {
    absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&log, t] {
        for (int b = 0; b < kBatches; ++b) {
          std::vector<fetcher::FetchEvent> events;
          for (int i = 0; i < kBatchSize; ++i) {
            events.push_back(
                Event(absl::StrCat("http://a.test/", t, "/", b, "/", i, "/", std::string(200, 'x')),
                      200, OutcomeClass::kFetched));
          }
          std::vector<const fetcher::FetchEvent*> batch;
          for (const fetcher::FetchEvent& e : events) batch.push_back(&e);
          (*log)->OnFetchBatch(batch);
        }
      });
    }
    for (std::thread& th : threads) th.join();
  }
  std::vector<std::string> lines = absl::StrSplit(ReadFile(path), '\n');
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kBatches * kBatchSize + 1));
  for (size_t start = 0; start + 1 < lines.size(); start += kBatchSize) {
    const std::string prefix = lines[start].substr(0, lines[start].rfind("/0/"));
    for (int i = 0; i < kBatchSize; ++i) {
      ASSERT_THAT(lines[start + i], HasSubstr(absl::StrCat(prefix, "/", i, "/")))
          << "line " << start + i << " is not line " << i << " of its batch";
      ASSERT_EQ(std::vector<std::string>(absl::StrSplit(lines[start + i], '\t')).size(), 7u);
    }
  }
}

TEST(CrawlLog, UnopenablePathIsAnError) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(dir.Path("no/such/dir/log"));
  EXPECT_FALSE(log.ok());
  EXPECT_THAT(std::string(log.status().message()), HasSubstr("no/such/dir/log"));
}

// --------------------------------------------------------------------------------- crawl stats

TEST(CrawlStats, TotalsCountFetchesPagesAndErrorsByClass) {
  CrawlStats stats;
  fetcher::FetchEvent robots = Event("http://a.test/robots.txt", 200, OutcomeClass::kFetched, 50);
  robots.robots_txt = true;
  stats.OnFetch(robots);
  stats.OnFetch(Event("http://a.test/", 200, OutcomeClass::kFetched, 1000));
  stats.OnFetch(Event("http://a.test/c", 200, OutcomeClass::kDuplicate, 1000, "exact duplicate"));
  stats.OnFetch(Event("http://a.test/m", 404, OutcomeClass::kHttpError, 10));
  stats.OnFetch(Event("http://a.test/n", 404, OutcomeClass::kHttpError, 10));
  stats.OnFetch(Event("http://a.test/b", 503, OutcomeClass::kHttpError, 5));
  stats.OnFetch(Event("http://a.test/t", 0, OutcomeClass::kNetworkError, 0, "timeout: 5 s"));
  stats.OnFetch(Event("http://a.test/d", 0, OutcomeClass::kRobotsDenied, 0, "Disallow: /d"));
  stats.OnFetch(Event("http://a.test/o", 301, OutcomeClass::kRedirect, 0, "http://a.test/p"));
  stats.OnFetch(Event("http://a.test/s", 304, OutcomeClass::kNotModified, 0));
  fetcher::FetchEvent many = Event("http://a.test/many", 200, OutcomeClass::kFetched, 0,
                                   "links cut: 90000 of 100000");
  many.links_cut = 90000;
  stats.OnFetch(many);

  const CrawlTotals t = stats.Totals();
  EXPECT_EQ(t.fetches, 10u);  // everything but the robots-denied URL
  EXPECT_EQ(t.pages, 8u);     // answered collection URLs (not robots.txt)
  EXPECT_EQ(t.bytes, 50u + 1000 + 1000 + 10 + 10 + 5);
  EXPECT_EQ(t.robots_txt, 1u);
  EXPECT_EQ(t.robots_denied, 1u);
  EXPECT_EQ(t.duplicates, 1u);
  EXPECT_EQ(t.errors, 4u);
  EXPECT_EQ(t.errors_by_class, (std::map<std::string, uint64_t>{
                                   {"http_404", 2}, {"http_503", 1}, {"timeout", 1}}));
  EXPECT_EQ(t.links_cut, 90000u);
  EXPECT_EQ(t.pages_with_links_cut, 1u);
  EXPECT_EQ(t.outcomes, (std::map<std::string, uint64_t>{{"fetched", 2},
                                                          {"duplicate", 1},
                                                          {"http_error", 3},
                                                          {"network_error", 1},
                                                          {"robots_denied", 1},
                                                          {"redirect", 1},
                                                          {"not_modified", 1}}));
}

// errors_by_class is a breakdown by kind of failure (a metric label set): it must stay small
// whatever the crawl meets. The fetcher's name-resolution failures carry the host in their
// detail ("resolve <host>: <reason>", services/fetcher/resolver.cc); they must not make one
// class per host.
TEST(CrawlStats, ErrorClassesDoNotGrowWithHosts) {
  CrawlStats stats;
  for (int i = 0; i < 50; ++i) {
    const std::string host = absl::StrCat("h", i, ".test");
    stats.OnFetch(Event("http://" + host + "/", 0, OutcomeClass::kNetworkError, 0,
                        "resolve " + host + ": Name or service not known"));
  }
  const CrawlTotals t = stats.Totals();
  EXPECT_EQ(t.errors, 50u);
  EXPECT_EQ(t.errors_by_class.size(), 1u) << "first class: " << t.errors_by_class.begin()->first;
}

TEST(CrawlStats, IsThreadSafe) {
  CrawlStats stats;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&stats] {
      for (int j = 0; j < 1000; ++j) {
        stats.OnFetch(Event("http://a.test/", 200, OutcomeClass::kFetched, 1));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(stats.Totals().pages, 4000u);
  EXPECT_EQ(stats.Totals().bytes, 4000u);
}

TEST(ObserverList, FansOutToEveryObserver) {
  CrawlStats a;
  CrawlStats b;
  ObserverList list;
  list.Add(&a);
  list.Add(&b);
  list.OnFetch(Event("http://a.test/", 200, OutcomeClass::kFetched, 7));
  EXPECT_EQ(a.Totals().pages, 1u);
  EXPECT_EQ(b.Totals().bytes, 7u);
  const fetcher::FetchEvent x = Event("http://a.test/x", 200, OutcomeClass::kFetched, 10);
  const fetcher::FetchEvent y = Event("http://a.test/y", 0, OutcomeClass::kRobotsDenied);
  const fetcher::FetchEvent* batch[] = {&x, &y};
  list.OnFetchBatch(batch);
  for (const CrawlStats* s : {&a, &b}) {
    EXPECT_EQ(s->Totals().pages, 2u);
    EXPECT_EQ(s->Totals().bytes, 17u);
    EXPECT_EQ(s->Totals().robots_denied, 1u);
  }
}

// ------------------------------------------------------------------------------------- summary

TEST(SummaryJson, IsValidJsonWithEveryTotal) {
  CrawlTotals t;
  t.pages = 120;
  t.fetches = 130;
  t.bytes = 987654;
  t.errors = 3;
  t.errors_by_class = {{"http_404", 2}, {"timeout", 1}};
  t.duplicates = 4;
  t.robots_denied = 5;
  t.robots_txt = 6;
  t.links_cut = 7;
  t.pages_with_links_cut = 8;
  t.outcomes = {{"fetched", 110}, {"http_error", 2}};
  const std::string json =
      SummaryJson(t, absl::Seconds(60), R"("warc_files": ["a.warc.gz"], "resumed": false)");
  std::optional<Json> doc = JsonParser::Parse(json);
  ASSERT_TRUE(doc.has_value()) << json;
  ASSERT_EQ(doc->type, Json::Type::kObject);
  const std::map<std::string, Json>& o = doc->object;
  auto number = [&](const std::string& key) {
    auto it = o.find(key);
    EXPECT_TRUE(it != o.end() && it->second.type == Json::Type::kNumber) << key;
    return it == o.end() ? -1.0 : it->second.number;
  };
  EXPECT_EQ(number("pages"), 120);
  EXPECT_EQ(number("fetches"), 130);
  EXPECT_EQ(number("bytes"), 987654);
  EXPECT_EQ(number("errors"), 3);
  EXPECT_EQ(number("duplicates"), 4);
  EXPECT_EQ(number("robots_denied"), 5);
  EXPECT_EQ(number("robots_txt_fetches"), 6);
  EXPECT_EQ(number("links_cut"), 7);
  EXPECT_EQ(number("pages_with_links_cut"), 8);
  EXPECT_DOUBLE_EQ(number("pages_per_second"), 2.0);
  EXPECT_DOUBLE_EQ(number("elapsed_seconds"), 60.0);
  ASSERT_EQ(o.count("errors_by_class"), 1u);
  const Json& by_class = o.at("errors_by_class");
  ASSERT_EQ(by_class.type, Json::Type::kObject);
  EXPECT_EQ(by_class.object.at("http_404").number, 2);
  EXPECT_EQ(by_class.object.at("timeout").number, 1);
  ASSERT_EQ(o.count("outcomes"), 1u);
  EXPECT_EQ(o.at("outcomes").object.at("fetched").number, 110);
  ASSERT_EQ(o.count("warc_files"), 1u);
  EXPECT_EQ(o.at("warc_files").array.at(0).string, "a.warc.gz");
  ASSERT_EQ(o.count("resumed"), 1u);
  EXPECT_EQ(o.at("resumed").type, Json::Type::kBool);
}

TEST(SummaryJson, EmptyTotalsZeroElapsedAndHostileClassNamesStayValid) {
  EXPECT_TRUE(JsonParser::Parse(SummaryJson(CrawlTotals{}, absl::ZeroDuration(), "")).has_value());
  CrawlTotals t;
  t.errors_by_class = {{"weird \"class\"\\\n\t\x01", 1}};
  const std::string json = SummaryJson(t, absl::Seconds(1), "");
  std::optional<Json> doc = JsonParser::Parse(json);
  ASSERT_TRUE(doc.has_value()) << json;
  EXPECT_EQ(doc->object.at("errors_by_class").object.count("weird \"class\"\\\n\t\x01"), 1u);
  EXPECT_EQ(doc->object.at("pages_per_second").number, 0);
}

// The summary's strings come from lib/json; checked here against this file's JSON parser.
TEST(JsonString, EscapesWhatJsonRequires) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain", "plain"},
      {"say \"hi\"", "say \\\"hi\\\""},
      {"back\\slash", "back\\\\slash"},
      {"line\nbreak\r\ttab", "line\\nbreak\\r\\ttab"},
      {std::string("nul\0x", 5), "nul\\u0000x"},
      {"\x01\x1f", "\\u0001\\u001f"},
      {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"},  // UTF-8 passes through
      {"a/b", "a/b"},
      {"", ""},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(json::JsonString(in), "\"" + want + "\"");
    std::optional<Json> round = JsonParser::Parse(json::JsonString(in));
    ASSERT_TRUE(round.has_value()) << in;
    EXPECT_EQ(round->string, in);
  }
}

}  // namespace
}  // namespace crawler::standalone
