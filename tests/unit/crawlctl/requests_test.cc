// crawlctl's requests: collection YAML through CollectionKeys(), create and update requests
// (update_mask from the keys present), seed batching and explain chunking.
#include "tools/crawlctl/requests.h"

#include <google/protobuf/util/field_mask_util.h>

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/collections/collection_keys.h"

namespace crawler::crawlctl {
namespace {

constexpr char kGovSi[] = R"(name: gov-si
seeds: [https://www.gov.si/, https://e-uprava.gov.si/]
allow_host_suffixes: [gov.si]
max_depth: 5
min_delay: 2s
max_pages_per_host: 1000
store_bodies: false
)";

TEST(ParseCollectionYamlTest, ReadsTheKeysOfCollectionKeys) {
  absl::StatusOr<CollectionFile> file = ParseCollectionYaml(kGovSi, "gov.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->collection.name, "gov-si");
  EXPECT_EQ(file->collection.seeds.size(), 2u);
  EXPECT_EQ(file->collection.scope.allowed_host_suffixes, std::vector<std::string>{"gov.si"});
  EXPECT_EQ(file->collection.scope.max_depth, 5u);
  EXPECT_EQ(file->collection.politeness.min_delay, absl::Seconds(2));
  EXPECT_FALSE(file->collection.store_bodies);
  EXPECT_EQ(file->keys, (std::vector<std::string>{"name", "seeds", "allow_host_suffixes",
                                                  "max_depth", "min_delay",
                                                  "max_pages_per_host", "store_bodies"}));
}

TEST(ParseCollectionYamlTest, RejectsUnknownKeysAndBadValuesNamingTheKey) {
  absl::Status unknown = ParseCollectionYaml("name: x\nmax_pagez: 3\n", "c.yaml").status();
  EXPECT_TRUE(absl::IsInvalidArgument(unknown));
  EXPECT_NE(unknown.message().find("c.yaml"), std::string::npos) << unknown;
  EXPECT_NE(unknown.message().find("\"max_pagez\""), std::string::npos) << unknown;
  absl::Status bad = ParseCollectionYaml("min_delay: soon\n", "c.yaml").status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("\"min_delay\""), std::string::npos) << bad;
  EXPECT_TRUE(absl::IsInvalidArgument(ParseCollectionYaml("[1, 2]", "c.yaml").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseCollectionYaml("name: [", "c.yaml").status()));
  EXPECT_TRUE(absl::IsNotFound(LoadCollectionFile("/nonexistent/c.yaml").status()));
}

TEST(ParseCollectionYamlTest, ASecondDocumentIsAnErrorNotIgnored) {
  // Two collections pasted into one file: the second must not vanish without a word.
  absl::Status two =
      ParseCollectionYaml("name: a\nseeds: [http://a.test/]\n---\nname: b\n", "c.yaml")
          .status();
  EXPECT_TRUE(absl::IsInvalidArgument(two)) << two;
  EXPECT_NE(two.message().find("document"), std::string::npos) << two;
  // An explicit start marker (and an end marker) around the one document are fine.
  EXPECT_TRUE(ParseCollectionYaml("---\nname: a\n...\n", "c.yaml").ok());
}

TEST(BuildCreateRequestTest, ConvertsTheValidatedCollection) {
  absl::StatusOr<CollectionFile> file = ParseCollectionYaml(kGovSi, "gov.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<v1::CreateCollectionRequest> request = BuildCreateRequest(*file);
  ASSERT_TRUE(request.ok()) << request.status();
  const v1::Collection& c = request->collection();
  EXPECT_EQ(c.name(), "gov-si");
  ASSERT_EQ(c.seeds_size(), 2);
  EXPECT_EQ(c.seeds(1), "https://e-uprava.gov.si/");
  EXPECT_EQ(c.scope().max_depth(), 5u);
  EXPECT_EQ(c.politeness().min_delay().seconds(), 2);
  EXPECT_EQ(c.limits().max_pages_per_host(), 1000u);
  EXPECT_FALSE(c.store_bodies());
}

TEST(BuildCreateRequestTest, NeedsANameAndAValidCollection) {
  absl::StatusOr<CollectionFile> no_name =
      ParseCollectionYaml("seeds: [https://a.example/]\n", "c.yaml");
  ASSERT_TRUE(no_name.ok());
  absl::Status s = BuildCreateRequest(*no_name).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("name"), std::string::npos) << s;

  absl::StatusOr<CollectionFile> no_seeds = ParseCollectionYaml("name: x\n", "c.yaml");
  ASSERT_TRUE(no_seeds.ok());
  s = BuildCreateRequest(*no_seeds).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("seed"), std::string::npos) << s;

  absl::StatusOr<CollectionFile> zero =
      ParseCollectionYaml("name: x\nseeds: [https://a.example/]\nmax_pages: 0\n", "c.yaml");
  ASSERT_TRUE(zero.ok());
  s = BuildCreateRequest(*zero).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("max_pages"), std::string::npos) << s;
}

// A key added to CollectionKeys() must get an update path, and every path must exist in
// crawler.v1.Collection, or `collections update` would send a mask the server rejects.
TEST(UpdateMaskPathTest, EveryKeyButNameAndSeedListsHasAValidPath) {
  for (const auto& key : collections::CollectionKeys().keys()) {
    if (key.name == "name" || key.name == "seeds" || key.name == "sitemap_seeds") {
      EXPECT_FALSE(UpdateMaskPath(key.name).has_value()) << key.name;
      continue;
    }
    std::optional<std::string> path = UpdateMaskPath(key.name);
    ASSERT_TRUE(path.has_value()) << key.name;
    EXPECT_TRUE(google::protobuf::util::FieldMaskUtil::GetFieldDescriptors(
        v1::Collection::descriptor(), *path, nullptr))
        << key.name << " -> " << *path;
  }
  EXPECT_FALSE(UpdateMaskPath("bogus").has_value());
}

TEST(BuildUpdateRequestTest, MasksExactlyTheKeysPresent) {
  absl::StatusOr<CollectionFile> file =
      ParseCollectionYaml("min_delay: 5s\nmax_depth: 3\nrevisit: true\n", "u.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<v1::UpdateCollectionRequest> request = BuildUpdateRequest("gov-si", *file);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->collection().name(), "gov-si");
  EXPECT_EQ(request->collection().politeness().min_delay().seconds(), 5);
  EXPECT_TRUE(request->collection().revisit().options().enabled());
  EXPECT_EQ(std::vector<std::string>(request->update_mask().paths().begin(),
                                     request->update_mask().paths().end()),
            (std::vector<std::string>{"politeness.min_delay", "scope.max_depth",
                                      "revisit.options.enabled"}));
}

TEST(BuildUpdateRequestTest, RefusesRenamesSeedsAndEmptyChanges) {
  auto update = [](const char* yaml) {
    absl::StatusOr<CollectionFile> file = ParseCollectionYaml(yaml, "u.yaml");
    EXPECT_TRUE(file.ok()) << file.status();
    return BuildUpdateRequest("gov-si", *file).status();
  };
  EXPECT_TRUE(absl::IsInvalidArgument(update("name: other\nmin_delay: 1s\n")));
  EXPECT_TRUE(absl::IsInvalidArgument(update("seeds: [https://a.example/]\n")));
  EXPECT_TRUE(absl::IsInvalidArgument(update("name: gov-si\n")));
  EXPECT_TRUE(update("name: gov-si\nmin_delay: 1s\n").ok());
}

TEST(SeedBatcherTest, SkipsBlanksAndCommentsAndTrims) {
  std::istringstream in("# seeds\n\n  https://a.example/  \r\n#https://no.example/\nhttps://b.example/");
  SeedBatcher batcher(in);
  std::optional<v1::AddSeedsRequest> batch = batcher.Next("c");
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->collection(), "c");
  ASSERT_EQ(batch->seeds_size(), 2);
  EXPECT_EQ(batch->seeds(0), "https://a.example/");
  EXPECT_EQ(batch->seeds(1), "https://b.example/");
  EXPECT_FALSE(batcher.Next("c").has_value());
  EXPECT_FALSE(batcher.failed());
}

// seeds add --sitemap / --sitemaps: every message of the stream says its seeds are sitemaps.
TEST(SeedBatcherTest, SitemapSeedsAreMarkedInEveryMessage) {
  std::istringstream in("http://a.test/sitemap.xml\nhttp://b.test/sitemap.xml.gz\n");
  SeedBatcher batcher(in, 1);
  batcher.set_sitemaps(true);
  int messages = 0;
  while (std::optional<v1::AddSeedsRequest> batch = batcher.Next("c")) {
    EXPECT_TRUE(batch->sitemaps());
    ++messages;
  }
  EXPECT_EQ(messages, 2);
  std::istringstream pages("http://a.test/\n");
  SeedBatcher plain(pages);
  EXPECT_FALSE(plain.Next("c")->sitemaps());
}

TEST(SeedBatcherTest, BatchesAreBoundedAndLoseNothing) {
  std::string text;
  for (int i = 0; i < 25'001; ++i) text += "https://h" + std::to_string(i) + ".example/\n";
  std::istringstream in(text);
  SeedBatcher batcher(in);
  std::vector<int> sizes;
  while (std::optional<v1::AddSeedsRequest> batch = batcher.Next("c")) {
    sizes.push_back(batch->seeds_size());
  }
  EXPECT_EQ(sizes, (std::vector<int>{10'000, 10'000, 5'001}));
}

// The server takes 4 MiB a message: 3,000 seeds of 2 KB go in three messages of about 2 MiB.
TEST(SeedBatcherTest, BatchesAreBoundedInBytesToo) {
  std::string text;
  for (int i = 0; i < 3'000; ++i) {
    text += "https://a.example/" + std::string(2000, 'x') + std::to_string(i) + "\n";
  }
  std::istringstream in(text);
  SeedBatcher batcher(in);
  int seeds = 0;
  int batches = 0;
  while (std::optional<v1::AddSeedsRequest> batch = batcher.Next("c")) {
    EXPECT_LE(batch->ByteSizeLong(), kMaxRequestBytes + 64 * 1024);
    seeds += batch->seeds_size();
    ++batches;
  }
  EXPECT_EQ(seeds, 3'000);
  EXPECT_EQ(batches, 3);
}

TEST(SplitOffSeedsTest, SeedsPastOneRequestFollowAndSameSiteScopesAreRefused) {
  CollectionFile file = *ParseCollectionYaml("name: big\nseeds: [https://a.example/]\n", "c");
  for (int i = 0; i < 2'000; ++i) {
    file.collection.seeds.push_back("https://a.example/" + std::string(2000, 'x') +
                                    std::to_string(i));
  }
  v1::CreateCollectionRequest request = *BuildCreateRequest(file);
  v1::CreateCollectionRequest small = request;
  small.mutable_collection()->mutable_seeds()->DeleteSubrange(1, 2'000);
  EXPECT_TRUE(SplitOffSeeds(small)->empty()) << "a request that fits is sent whole";
  absl::StatusOr<std::vector<std::string>> rest = SplitOffSeeds(request);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_LE(request.ByteSizeLong(), kMaxRequestBytes);
  EXPECT_EQ(request.collection().seeds_size() + rest->size(), 2'001u);
  EXPECT_EQ(request.collection().seeds(0), "https://a.example/");
  EXPECT_EQ(rest->back(), file.collection.seeds.back());
  v1::CreateCollectionRequest site = *BuildCreateRequest(file);
  site.mutable_collection()->mutable_scope()->set_same_site_only(true);
  const size_t before = site.collection().seeds_size();
  EXPECT_TRUE(absl::IsInvalidArgument(SplitOffSeeds(site).status()));
  EXPECT_EQ(static_cast<size_t>(site.collection().seeds_size()), before);
}

TEST(SplitOffSeedsTest, ADefinitionOverTheServersLimitWithoutItsSeedsIsAnInputError) {
  CollectionFile file =
      *ParseCollectionYaml("name: big\nseeds: [https://a.example/, https://b.example/]\n", "c");
  v1::CreateCollectionRequest request = *BuildCreateRequest(file);
  // A 5 MiB pattern: the server would read it whole and answer RESOURCE_EXHAUSTED.
  request.mutable_collection()->mutable_scope()->add_exclude_patterns(std::string(5 << 20, 'a'));
  absl::StatusOr<std::vector<std::string>> rest = SplitOffSeeds(request);
  ASSERT_TRUE(absl::IsInvalidArgument(rest.status())) << rest.status();
  EXPECT_THAT(std::string(rest.status().message()),
              ::testing::HasSubstr("without its seeds takes 5.0 MiB, more than the 4 MiB the server "
                        "accepts in one request"));
  EXPECT_TRUE(FitsOneRequest(kServerMaxRequestBytes, "x").ok());
  EXPECT_TRUE(absl::IsInvalidArgument(FitsOneRequest(kServerMaxRequestBytes + 1, "x")));
}

TEST(BuildExplainRequestsTest, AtMostOneHundredUrlsEach) {
  std::vector<std::string> urls(250, "https://a.example/");
  std::vector<v1::ExplainUrlRequest> requests = BuildExplainRequests("c", urls);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].urls_size(), 100);
  EXPECT_EQ(requests[2].urls_size(), 50);
  EXPECT_EQ(requests[2].collection(), "c");
  EXPECT_TRUE(BuildExplainRequests("c", {}).empty());
}

}  // namespace
}  // namespace crawler::crawlctl
