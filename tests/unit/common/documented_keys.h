// Test helper: checks that docs/configuration.md documents every key of a KeyTable with its
// flag, as a table row "| `key` | flags | default | meaning |". Tests define CRAWLER_DOCS_DIR.
#ifndef CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_
#define CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/config/key_table.h"

namespace crawler::testing {

// The table rows ("| `...") of docs/configuration.md after the line `section` (a heading; empty:
// the whole page). Fails the test if the page or the section cannot be found.
inline std::vector<std::string> DocumentedKeyRows(const std::string& section) {
  std::ifstream in(CRAWLER_DOCS_DIR "/configuration.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string docs = s.str();
  EXPECT_FALSE(docs.empty()) << "cannot read " CRAWLER_DOCS_DIR "/configuration.md";
  std::vector<std::string> rows;
  bool in_section = section.empty();
  for (absl::string_view line : absl::StrSplit(docs, '\n')) {
    if (line == section) in_section = true;
    if (in_section && absl::StartsWith(line, "| `")) rows.emplace_back(line);
  }
  EXPECT_TRUE(in_section) << "docs/configuration.md has no line \"" << section << "\"";
  return rows;
}

// Every key of `table` has a row in `rows` naming its flag (if it has one).
template <typename T>
void ExpectEveryKeyDocumented(const config::KeyTable<T>& table,
                              const std::vector<std::string>& rows) {
  for (const config::Key<T>& key : table.keys()) {
    SCOPED_TRACE(key.name);
    const std::string prefix = absl::StrCat("| `", key.name, "` | ");
    bool documented = false;
    for (const std::string& row : rows) {
      if (!absl::StartsWith(row, prefix)) continue;
      documented = true;
      if (!key.flag.empty()) {
        EXPECT_THAT(row.substr(prefix.size()), ::testing::HasSubstr("`" + key.flag))
            << "the row does not name the flag";
      }
    }
    EXPECT_TRUE(documented) << "docs/configuration.md has no row for key \"" << key.name << "\"";
  }
}

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_
