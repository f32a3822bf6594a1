// The labelled change corpus: shape, determinism, and that each label means what it says about
// the page's visible text.
#include "tools/websim/change_corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "lib/fingerprint/text_normalizer.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"

namespace crawler::websim {
namespace {

std::string NormalisedText(const std::string& html, const std::string& url) {
  absl::StatusOr<url::Url> parsed = url::Url::Parse(url);
  EXPECT_TRUE(parsed.ok());
  absl::StatusOr<html::ExtractedPage> page = html::ExtractPage(html, *parsed, "text/html");
  EXPECT_TRUE(page.ok());
  return fingerprint::NormalizeForFingerprint(page->text);
}

TEST(ChangeCorpus, OnePairPerPageAndKindAndHalfTheDuplicatesAreMirrors) {
  const ChangeCorpus corpus = BuildChangeCorpus({.seed = 3, .pages = 10, .duplicate_pairs = 6});
  ASSERT_EQ(corpus.versions.size(), 10u * kEditKinds);
  ASSERT_EQ(corpus.duplicates.size(), 12u);
  int mirrors = 0;
  for (const DuplicatePair& pair : corpus.duplicates) {
    mirrors += pair.mirror ? 1 : 0;
    EXPECT_NE(pair.first_url, pair.second_url);
  }
  EXPECT_EQ(mirrors, 6);
  for (const VersionPair& pair : corpus.versions) {
    EXPECT_EQ(pair.changed, IsRealEdit(pair.kind));
    EXPECT_NE(pair.before_html, pair.after_html) << EditKindName(pair.kind);
  }
}

TEST(ChangeCorpus, SameSeedSameCorpus) {
  const ChangeCorpus a = BuildChangeCorpus({.seed = 5, .pages = 4, .duplicate_pairs = 2});
  const ChangeCorpus b = BuildChangeCorpus({.seed = 5, .pages = 4, .duplicate_pairs = 2});
  const ChangeCorpus c = BuildChangeCorpus({.seed = 6, .pages = 4, .duplicate_pairs = 2});
  for (size_t i = 0; i < a.versions.size(); ++i) {
    EXPECT_EQ(a.versions[i].after_html, b.versions[i].after_html);
  }
  EXPECT_NE(a.versions[0].before_html, c.versions[0].before_html);
}

TEST(ChangeCorpus, LabelsMatchWhatTheTextSays) {
  const ChangeCorpus corpus = BuildChangeCorpus({.seed = 1, .pages = 8, .duplicate_pairs = 1});
  for (const VersionPair& pair : corpus.versions) {
    const std::string before = NormalisedText(pair.before_html, pair.before_url);
    const std::string after = NormalisedText(pair.after_html, pair.before_url);
    switch (pair.kind) {
      case EditKind::kDateStamp:
      case EditKind::kCounter:
      case EditKind::kSessionIds:
      case EditKind::kWhitespaceMarkup:
      case EditKind::kPriceChanged:  // numbers are normalised away: the text cannot tell
        EXPECT_EQ(before, after) << EditKindName(pair.kind);
        break;
      default:  // ads, navigation and every other real edit move words
        EXPECT_NE(before, after) << EditKindName(pair.kind);
    }
  }
}

TEST(ChangeCorpus, ExportWritesTheLabelsAndEveryPage) {
  const ChangeCorpus corpus = BuildChangeCorpus({.seed = 2, .pages = 2, .duplicate_pairs = 1});
  const std::string dir = testing::TempDir() + "/change_corpus_export";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(ExportChangeCorpus(corpus, dir).ok());
  std::ifstream labels(dir + "/labels.tsv");
  const std::string text((std::istreambuf_iterator<char>(labels)), std::istreambuf_iterator<char>());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2 * kEditKinds + 2);
  EXPECT_NE(text.find("version\t1\tnews-item-added\tchanged\n"), std::string::npos);
  EXPECT_NE(text.find("duplicate\t0\tmirror\tduplicate\n"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/versions/1-price-changed-after.html"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/duplicates/1-second.html"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crawler::websim
