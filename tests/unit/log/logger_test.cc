// Logger: one line per event, "<role>[ [<collection>]]: <message>", to the injected sink.
#include "lib/log/logger.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/log/recording_log_sink.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;

TEST(Logger, OneLinePerEventWithTheRoleAndTheCollection) {
  RecordingLogSink sink;
  const Logger log(sink, "fetcher");
  log.Info("serving on ", "127.0.0.1:", 5000);
  log.ForCollection("news").Warning("cannot start: ", std::string_view("no seeds"));
  log.ForCollection("news").Error("stopped after ", 2.5, " s");
  EXPECT_THAT(sink.lines(), ElementsAre("fetcher: serving on 127.0.0.1:5000",
                                        "fetcher [news]: cannot start: no seeds",
                                        "fetcher [news]: stopped after 2.5 s"));
}

TEST(Logger, ADefaultLoggerDiscardsEverything) {
  const Logger log;
  log.Error("nobody hears this");  // must not crash
  RecordingLogSink sink;
  const Logger copy = Logger(sink, "crawl").ForCollection("a").ForCollection("b");
  copy.Info("x");
  EXPECT_THAT(sink.lines(), ElementsAre("crawl [a] [b]: x"));
}

// A sink sees the level of each event (StderrLogSink drops those below its threshold).
class LevelSink final : public LogSink {
 public:
  void Write(LogLevel level, std::string_view) override { levels.push_back(level); }
  std::vector<LogLevel> levels;
};

TEST(Logger, EachEventCarriesItsLevel) {
  LevelSink sink;
  const Logger log(sink, "r");
  log.Debug("d");
  log.Info("i");
  log.Warning("w");
  log.Error("e");
  EXPECT_THAT(sink.levels,
              ElementsAre(LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError));
}

}  // namespace
}  // namespace crawler
