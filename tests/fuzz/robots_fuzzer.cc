// libFuzzer target for lib/robots: parses arbitrary bytes as robots.txt, then matches a few
// agents and paths derived from the input. Must never crash, hang or use unbounded memory, and
// must keep the invariants that hold for every file: /robots.txt is always allowed, and a
// deciding rule is reported with a line number inside the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/robots/robots_parser.h"
#include "lib/robots/robots_rules.h"

namespace {

// Counts events, to drive the parser through a second handler as diagnostics tools would.
class CountingHandler : public crawler::robots::RobotsParseHandler {
 public:
  void HandleUserAgent(int line, std::string_view) override { Count(line); }
  void HandleAllow(int line, std::string_view) override { Count(line); }
  void HandleDisallow(int line, std::string_view) override { Count(line); }
  void HandleCrawlDelay(int line, std::string_view) override { Count(line); }
  void HandleSitemap(int line, std::string_view) override { Count(line); }
  void HandleUnknown(int line, std::string_view, std::string_view) override { Count(line); }
  void HandleParseLimit(int first_line, size_t) override {
    if (first_line <= last_line_) std::abort();
  }
  int last_line() const { return last_line_; }

 private:
  void Count(int line) {
    if (line <= last_line_) std::abort();  // line numbers strictly increase
    last_line_ = line;
  }
  int last_line_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  CountingHandler counter;
  crawler::robots::ParseRobotsTxt(body, counter);

  const crawler::robots::RobotsRules rules = crawler::robots::RobotsRules::Parse(body);
  const std::string_view tail = body.substr(size > 64 ? size - 64 : 0);
  const std::string_view head = body.substr(0, 16);
  const std::string rooted_tail = "/" + std::string(tail);
  const std::string_view agents[] = {"FooBot", "*", "", head};
  const std::string_view paths[] = {"/", "", "/a/b.gif", rooted_tail, tail, head};
  for (std::string_view agent : agents) {
    for (std::string_view path : paths) {
      const crawler::robots::MatchResult result = rules.Match(agent, path);
      if (result.rule.has_value() &&
          (result.rule->line < 1 || result.rule->line > counter.last_line())) {
        std::abort();
      }
    }
    if (!rules.Match(agent, "/robots.txt").allowed) std::abort();
    (void)rules.MatchUrl(agent, tail);
    (void)rules.CrawlDelay(agent);
  }
  (void)crawler::robots::RobotsRules::PathAndQuery(body);
  (void)rules.Sitemaps();
  return 0;
}
