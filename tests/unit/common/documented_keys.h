// Test helper: checks that docs/configuration.md documents every key of a KeyTable with its
// flag, as a table row "| `key` | flags | default | meaning |", and reads the tables of other
// doc pages for tests that pin what they state. Tests define CRAWLER_DOCS_DIR.
#ifndef CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_
#define CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/config/key_table.h"

namespace crawler::testing {

// The text of docs/<page>; fails the test if it cannot be read.
inline std::string ReadDocPage(const std::string& page) {
  std::ifstream in(absl::StrCat(CRAWLER_DOCS_DIR, "/", page));
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << "cannot read " CRAWLER_DOCS_DIR "/" << page;
  return s.str();
}

// The rows ("| ...", the header included) of the first table of docs/<page> after the line
// `heading` (a heading, or the line that introduces the table), within its section. Fails the
// test if there is no such line.
inline std::vector<std::string> DocTableRows(const std::string& page, const std::string& heading) {
  std::vector<std::string> rows;
  bool in_section = false;
  for (absl::string_view line : absl::StrSplit(ReadDocPage(page), '\n')) {
    const bool row = absl::StartsWith(line, "|");
    if (in_section && (absl::StartsWith(line, "#") || (!row && !rows.empty()))) break;
    if (line == heading) in_section = true;
    if (in_section && absl::StartsWith(line, "| ")) rows.emplace_back(line);
  }
  EXPECT_TRUE(in_section) << "docs/" << page << " has no line \"" << heading << "\"";
  return rows;
}

// The row of `rows` whose first cell is `first` (e.g. "`frontier.meta`"); "" if none.
inline std::string DocRow(const std::vector<std::string>& rows, const std::string& first) {
  for (const std::string& row : rows) {
    if (absl::StartsWith(row, absl::StrCat("| ", first, " |"))) return row;
  }
  return "";
}

// The table rows ("| `...") of docs/configuration.md after the line `section` (a heading; empty:
// the whole page). Fails the test if the page or the section cannot be found.
inline std::vector<std::string> DocumentedKeyRows(const std::string& section) {
  const std::string docs = ReadDocPage("configuration.md");
  std::vector<std::string> rows;
  bool in_section = section.empty();
  for (absl::string_view line : absl::StrSplit(docs, '\n')) {
    if (line == section) in_section = true;
    if (in_section && absl::StartsWith(line, "| `")) rows.emplace_back(line);
  }
  EXPECT_TRUE(in_section) << "docs/configuration.md has no line \"" << section << "\"";
  return rows;
}

// Whether a key table row's default cell states `want` (as --help prints it): "`1s`",
// "268435456 (256 MiB)" (a gloss may follow, on either side: "none (required with
// --revisit)" is stated by "— (required with `revisit`)"), "`60s`" for "1m" (durations compare
// by value), "— (required)" for "required", "2.0" for "2".
inline bool DefaultCellStates(const std::string& cell, const std::string& want) {
  std::string text = absl::StrReplaceAll(cell, {{"`", ""}});
  if (absl::StartsWith(text, "\xE2\x80\x94")) text.replace(0, 3, "none");  // an em dash
  const std::string head = want.substr(0, want.find(" ("));
  // The default, then the end of the cell or a gloss: 10000000 does not state 1000000.
  if (absl::StartsWith(text, head) && (text.size() == head.size() || text[head.size()] == ' ')) {
    return true;
  }
  if (want == "required") return absl::StrContains(text, "(required)");
  absl::Duration a, b;
  if (absl::ParseDuration(want, &a) && absl::ParseDuration(text, &b)) return a == b;
  double x = 0, y = 0;  // "2.0" states "2"
  return absl::SimpleAtod(want, &x) && absl::SimpleAtod(text, &y) && x == y;
}

// Every key of `table` has a row in `rows` naming its flag (if it has one) whose default is the
// code's. A key documented in several tables (a role's own `data_dir`, ...) needs one row with
// the code's default, or the line "Default `key`: `default`." of its section (a role's `listen`).
template <typename T>
void ExpectEveryKeyDocumented(const config::KeyTable<T>& table,
                              const std::vector<std::string>& rows) {
  const std::string page = ReadDocPage("configuration.md");
  for (const config::Key<T>& key : table.keys()) {
    SCOPED_TRACE(key.name);
    const std::string prefix = absl::StrCat("| `", key.name, "` | ");
    bool documented = false;
    std::vector<std::string> defaults;
    for (const std::string& row : rows) {
      const std::vector<std::string> cells = absl::StrSplit(row, " | ");
      // Key tables have four columns; other tables (the summary's members) are not keys.
      if (!absl::StartsWith(row, prefix) || cells.size() < 4) continue;
      documented = true;
      if (!key.flag.empty()) {
        EXPECT_THAT(cells[1], ::testing::HasSubstr("`" + key.flag))
            << "the row does not name the flag";
      }
      defaults.push_back(cells[2]);
    }
    EXPECT_TRUE(documented) << "docs/configuration.md has no row for key \"" << key.name << "\"";
    if (!documented) continue;
    const std::string want = key.DefaultText();
    const bool stated =
        std::any_of(defaults.begin(), defaults.end(),
                    [&](const std::string& cell) { return DefaultCellStates(cell, want); }) ||
        absl::StrContains(page, absl::StrCat("Default `", key.name, "`: `", want, "`."));
    EXPECT_TRUE(stated) << "no row states the code's default \"" << want << "\"; rows say: "
                        << absl::StrJoin(defaults, " / ");
  }
}

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_COMMON_DOCUMENTED_KEYS_H_
