// KeyTable and FlagBinding tests (services/common/config): every value kind from YAML and from
// flags, defaults taken from the struct, composition of tables, and the errors: unknown keys,
// keys given twice, wrong types and bad values, each naming the key or flag.
#include "services/common/config/key_table.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/config/flag_binding.h"

namespace crawler::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Inner {
  int level = 3;
  absl::Duration wait = absl::Seconds(2);
};

struct Options {
  bool enabled = true;
  bool verbose = false;
  uint32_t count = 7;
  std::optional<uint32_t> depth;
  double factor = 1.5;
  double rate_per_day = 0;
  std::string label = "x";
  std::vector<std::string> tags;
  Inner inner;
};

const KeyTable<Inner>& InnerKeys() {
  static const auto* const table = [] {
    auto* t = new KeyTable<Inner>;
    t->Add({"level", "--level", "Level"}, &Inner::level)
        .Add({"wait", "--wait", "Wait"}, &Inner::wait);
    return t;
  }();
  return *table;
}

const KeyTable<Options>& Keys() {
  static const auto* const table = [] {
    auto* t = new KeyTable<Options>;
    t->Add({"enabled", "--no-enabled", "Switch off"}, &Options::enabled)
        .Add({"verbose", "--verbose", "Talk"}, &Options::verbose)
        .Add({"count", "--count", "How many"}, &Options::count)
        .Add({"depth", "--depth", "How deep"}, &Options::depth)
        .Add({"factor", "--factor", "Factor"}, &Options::factor)
        .Add({"rate", "--rate", "Rate", "none"}, &Options::rate_per_day, ValueKind::kVisitRate)
        .Add({"label", "", "No flag"}, &Options::label)
        .Add({"tags", "--tag", "Tags"}, &Options::tags)
        .Include(InnerKeys(), &Options::inner);
    return t;
  }();
  return *table;
}

absl::Status LoadText(const std::string& yaml, Options& out) {
  return Keys().Load(YAML::Load(yaml), out);
}

TEST(KeyTable, EveryKindIsLoadedFromYaml) {
  Options o;
  ASSERT_TRUE(LoadText("enabled: false\nverbose: yes\ncount: 12\ndepth: 4\nfactor: 2.5\n"
                       "rate: 20/h\nlabel: hello\ntags: [a, b]\nlevel: -1\nwait: 1h30m\n",
                       o)
                  .ok());
  EXPECT_FALSE(o.enabled);
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(o.count, 12u);
  EXPECT_EQ(o.depth, 4u);
  EXPECT_DOUBLE_EQ(o.factor, 2.5);
  EXPECT_DOUBLE_EQ(o.rate_per_day, 480);
  EXPECT_EQ(o.label, "hello");
  EXPECT_THAT(o.tags, ElementsAre("a", "b"));
  EXPECT_EQ(o.inner.level, -1);
  EXPECT_EQ(o.inner.wait, absl::Minutes(90));
}

TEST(KeyTable, AbsentKeysAndNullDocumentsChangeNothing) {
  Options o;
  o.count = 99;
  ASSERT_TRUE(LoadText("label: y\n", o).ok());
  EXPECT_EQ(o.count, 99u);
  ASSERT_TRUE(Keys().Load(YAML::Node(), o).ok());
  EXPECT_EQ(o.label, "y");
}

TEST(KeyTable, UnknownKeyIsNamedWithTheKnownOnes) {
  Options o;
  absl::Status s = LoadText("count: 1\ncuont: 2\n", o);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"cuont\""));
  EXPECT_THAT(std::string(s.message()), HasSubstr("known keys: count, depth, enabled"));
}

// yaml-cpp keeps both entries of a repeated key; the table must not let either win silently.
TEST(KeyTable, KeyGivenTwiceIsRejected) {
  Options o;
  absl::Status s = LoadText("count: 1\nlabel: a\ncount: 2\n", o);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"count\" given twice (lines 1 and 3)"));
}

TEST(KeyTable, WrongTypesAndBadValuesNameTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"count: -1\n", "count"},   {"count: 2.5\n", "count"},         {"count: [1]\n", "count"},
      {"depth: deep\n", "depth"}, {"enabled: perhaps\n", "enabled"}, {"factor: fast\n", "factor"},
      {"rate: 0/s\n", "rate"},    {"rate: 5/week\n", "rate"},        {"label: [a]\n", "label"},
      {"tags: a\n", "tags"},      {"tags: [[a]]\n", "tags"},         {"tags: {a: b}\n", "tags"},
      {"wait: 10\n", "wait"},     {"wait: -1s\n", "wait"},           {"level: 1.0e99\n", "level"},
  };
  for (const auto& [yaml, key] : cases) {
    SCOPED_TRACE(yaml);
    Options o;
    absl::Status s = LoadText(yaml, o);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("config key \"" + key + "\""));
  }
}

TEST(KeyTable, NonMappingsAndNonScalarKeysAreInvalid) {
  Options o;
  EXPECT_TRUE(absl::IsInvalidArgument(LoadText("- a\n", o)));
  EXPECT_TRUE(absl::IsInvalidArgument(LoadText("? [a, b]\n: 1\n", o)));
}

TEST(KeyTable, AFileOfTwoDocumentsIsRejected) {
  const std::string path = ::testing::TempDir() + "key_table_two_docs.yaml";
  std::ofstream(path) << "count: 1\n---\ncount: 2\n";
  Options options;
  absl::Status status = Keys().LoadFile(path, options);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("document"));
  std::ofstream(path) << "---\ncount: 3\n";
  EXPECT_TRUE(Keys().LoadFile(path, options).ok());
  EXPECT_EQ(options.count, 3u);
  std::remove(path.c_str());
}

TEST(KeyTable, DefaultsAreTheStructsOwn) {
  EXPECT_EQ(Keys().Find("count")->DefaultText(), "7");
  EXPECT_EQ(Keys().Find("enabled")->DefaultText(), "true");
  EXPECT_EQ(Keys().Find("depth")->DefaultText(), "unlimited");
  EXPECT_EQ(Keys().Find("wait")->DefaultText(), "2s");
  EXPECT_EQ(Keys().Find("rate")->DefaultText(), "none");  // the spec's text
  EXPECT_EQ(Keys().Find("tags")->DefaultText(), "none");
  EXPECT_EQ(Keys().Find("absent"), nullptr);
}

// A double field in days, written as a duration (ValueKind::kDays): Nutch's intervals, say.
struct DaysOptions {
  double interval_days = 60.0 / 86400;
};

TEST(KeyTable, DaysAreWrittenAsDurations) {
  KeyTable<DaysOptions> keys;
  keys.Add({"interval", "--interval", "Interval"}, &DaysOptions::interval_days, ValueKind::kDays);
  EXPECT_EQ(keys.Find("interval")->DefaultText(), "1m");  // not 59.99999999s
  DaysOptions o;
  ASSERT_TRUE(keys.Load(YAML::Load("interval: 36h\n"), o).ok());
  EXPECT_DOUBLE_EQ(o.interval_days, 1.5);
  EXPECT_TRUE(absl::IsInvalidArgument(keys.Load(YAML::Load("interval: 1.5\n"), o)));
  EXPECT_TRUE(absl::IsInvalidArgument(keys.Load(YAML::Load("interval: -1s\n"), o)));
}

absl::Status ParseFlags(std::vector<std::string> args, Options& out) {
  CLI::App app;
  FlagBinding<Options> flags(Keys(), app);
  std::vector<const char*> argv = {"test"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return flags.Apply(out);
}

TEST(FlagBinding, FlagsSetTheSameFieldsAsTheKeys) {
  Options o;
  o.tags = {"from-file"};
  ASSERT_TRUE(
      ParseFlags({"--no-enabled", "--verbose", "--count", "12", "--depth", "4", "--factor", "0.5",
                  "--rate", "1/s", "--tag", "a", "--tag", "b", "--level", "9", "--wait", "50ms"},
                 o)
          .ok());
  EXPECT_FALSE(o.enabled);
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(o.count, 12u);
  EXPECT_EQ(o.depth, 4u);
  EXPECT_DOUBLE_EQ(o.factor, 0.5);
  EXPECT_DOUBLE_EQ(o.rate_per_day, 86400);
  EXPECT_THAT(o.tags, ElementsAre("from-file", "a", "b"));  // a list flag appends
  EXPECT_EQ(o.inner.level, 9);
  EXPECT_EQ(o.inner.wait, absl::Milliseconds(50));
}

TEST(FlagBinding, FlagsNotGivenLeaveTheValuesAlone) {
  Options o;
  o.count = 5;
  o.enabled = false;
  ASSERT_TRUE(ParseFlags({}, o).ok());
  EXPECT_EQ(o.count, 5u);
  EXPECT_FALSE(o.enabled);
}

TEST(FlagBinding, BadArgumentsNameTheFlag) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--count", "-3"}, {"--wait", "soon"}, {"--rate", "fast"}, {"--factor", "x"}}) {
    SCOPED_TRACE(flag);
    Options o;
    absl::Status s = ParseFlags({flag, value}, o);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(flag + ": not "));
  }
}

TEST(FlagBinding, KeysWithoutAFlagHaveNone) {
  Options o;
  EXPECT_FALSE(ParseFlags({"--label", "x"}, o).ok());
}

}  // namespace
}  // namespace crawler::config
