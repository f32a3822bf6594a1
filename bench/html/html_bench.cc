// Micro-benchmarks of html::ExtractPage (lib/html/extract_page.h): one iteration = one page;
// bytes/s count the HTML body. Pages: websim's (bench/micro/websim_corpus.h, 400 pages of 2-8 KB),
// the files in tests/data/html and, where installed, the pages of Debian's python3.11-doc. The
// phase benchmarks (decode, nesting limiter, Gumbo's tree, URL resolution) split the cost of the
// Gumbo path; BM_ExtractPage* run each parser of ExtractOptions::parser.
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/micro/websim_corpus.h"
#include "benchmark/benchmark.h"
#include "lib/html/charset.h"
#include "lib/html/extract_page.h"
#include "lib/html/gumbo_tree.h"
#include "lib/html/internal/token_extractor.h"
#include "lib/html/nesting_limiter.h"
#include "lib/url/url.h"

namespace crawler::bench {
namespace {

struct BenchPage {
  url::Url url;
  std::string body;
  std::string content_type;
  std::vector<std::string> hrefs;  // the links ExtractPage returns, for BM_ResolveLinks
};

std::vector<BenchPage> Prepare(std::vector<BenchPage> pages) {
  for (BenchPage& page : pages) {
    absl::StatusOr<html::ExtractedPage> extracted =
        html::ExtractPage(page.body, page.url, page.content_type);
    if (!extracted.ok()) continue;
    for (const html::Link& link : extracted->links) page.hrefs.push_back(link.url.href());
  }
  return pages;
}

const std::vector<BenchPage>& WebsimPages() {
  static const std::vector<BenchPage>* const pages = [] {
    std::vector<BenchPage> out;
    for (const CorpusPage& p : WebsimCorpus().pages) {
      out.push_back(BenchPage{*url::Url::Parse(p.url), p.body, "text/html; charset=utf-8", {}});
    }
    return new std::vector<BenchPage>(Prepare(std::move(out)));
  }();
  return *pages;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::vector<BenchPage>& TestDataPages() {
  static const std::vector<BenchPage>* const pages = [] {
    std::vector<BenchPage> out;
    const std::filesystem::path dir = std::filesystem::path(CRAWLER_TEST_DATA) / "html";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".html") continue;
      out.push_back(BenchPage{*url::Url::Parse("https://example.com/dir/page.html"),
                              ReadFile(entry.path()), "", {}});
    }
    return new std::vector<BenchPage>(Prepare(std::move(out)));
  }();
  return *pages;
}

// The article pages of bench/standalone's docs web: the HTML files of Debian's python3.11-doc
// (96 KB mean), or of the tree CRAWLER_BENCH_DOCS names. Read once, at the first use.
std::filesystem::path DocsDir() {
  const char* dir = std::getenv("CRAWLER_BENCH_DOCS");
  return dir != nullptr ? dir : "/usr/share/doc/python3.11/html";
}

const std::vector<BenchPage>& DocsPages() {
  static const std::vector<BenchPage>* const pages = [] {
    std::vector<BenchPage> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(DocsDir())) {
      if (entry.path().extension() != ".html") continue;
      out.push_back(BenchPage{*url::Url::Parse("http://h0.docs.test/library/page.html"),
                              ReadFile(entry.path()), "text/html", {}});
    }
    return new std::vector<BenchPage>(Prepare(std::move(out)));
  }();
  return *pages;
}

// Runs `per_page` over the pages round-robin; reports pages/s and body bytes/s.
template <typename PerPage>
void RunPages(benchmark::State& state, const std::vector<BenchPage>& pages, PerPage per_page) {
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const BenchPage& page = pages[i];
    per_page(page);
    bytes += page.body.size();
    if (++i == pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}

// The share of `pages` the tokenizer extractor handles without handing them to Gumbo.
double TokenizerShare(const std::vector<BenchPage>& pages) {
  size_t handled = 0;
  for (const BenchPage& page : pages) {
    const html::SniffedEncoding sniffed = html::SniffEncoding(page.body, page.content_type, false);
    absl::StatusOr<std::string> utf8 =
        html::DecodeToUtf8(page.body.substr(sniffed.bom_bytes), sniffed.encoding);
    html::ExtractedPage extracted;
    if (utf8.ok() && html::internal::ExtractWithTokenizer(*utf8, page.url, html::ExtractOptions(),
                                                          extracted)) {
      ++handled;
    }
  }
  return static_cast<double>(handled) / static_cast<double>(pages.size());
}

void ExtractAll(benchmark::State& state, const std::vector<BenchPage>& pages,
                html::ExtractOptions::Parser parser) {
  html::ExtractOptions options;
  options.parser = parser;
  if (parser == html::ExtractOptions::Parser::kTokenizer) {
    state.counters["tokenizer_share"] = TokenizerShare(pages);
  }
  RunPages(state, pages, [&](const BenchPage& page) {
    absl::StatusOr<html::ExtractedPage> extracted =
        html::ExtractPage(page.body, page.url, page.content_type, options);
    if (!extracted.ok()) state.SkipWithError("ExtractPage failed");
    benchmark::DoNotOptimize(extracted);
  });
}

void BM_ExtractPage_Websim(benchmark::State& state) {
  ExtractAll(state, WebsimPages(), static_cast<html::ExtractOptions::Parser>(state.range(0)));
}
BENCHMARK(BM_ExtractPage_Websim)
    ->ArgName("parser")
    ->Arg(static_cast<int>(html::ExtractOptions::Parser::kGumbo))
    ->Arg(static_cast<int>(html::ExtractOptions::Parser::kTokenizer));

void BM_ExtractPage_TestData(benchmark::State& state) {
  ExtractAll(state, TestDataPages(), static_cast<html::ExtractOptions::Parser>(state.range(0)));
}
BENCHMARK(BM_ExtractPage_TestData)
    ->ArgName("parser")
    ->Arg(static_cast<int>(html::ExtractOptions::Parser::kGumbo))
    ->Arg(static_cast<int>(html::ExtractOptions::Parser::kTokenizer));

// Registered only where the pages are: the small version in CTest must not fail without them.
const bool kDocsRegistered = [] {
  if (!std::filesystem::exists(DocsDir() / "index.html")) return false;
  benchmark::RegisterBenchmark("BM_ExtractPage_Docs", [](benchmark::State& state) {
    ExtractAll(state, DocsPages(), static_cast<html::ExtractOptions::Parser>(state.range(0)));
  })
      ->ArgName("parser")
      ->Arg(static_cast<int>(html::ExtractOptions::Parser::kGumbo))
      ->Arg(static_cast<int>(html::ExtractOptions::Parser::kTokenizer));
  return true;
}();

// ---- The phases of the Gumbo path, on websim pages. ----

void BM_Phase_Decode(benchmark::State& state) {
  RunPages(state, WebsimPages(), [](const BenchPage& page) {
    const html::SniffedEncoding sniffed = html::SniffEncoding(page.body, page.content_type, false);
    benchmark::DoNotOptimize(html::DecodeToUtf8(page.body, sniffed.encoding));
  });
}
BENCHMARK(BM_Phase_Decode);

void BM_Phase_LimitNesting(benchmark::State& state) {
  std::string html;
  RunPages(state, WebsimPages(), [&](const BenchPage& page) {
    html = page.body;
    benchmark::DoNotOptimize(html::LimitNesting(html, html::NestingLimits()));
  });
}
BENCHMARK(BM_Phase_LimitNesting);

void BM_Phase_GumboTree(benchmark::State& state) {
  RunPages(state, WebsimPages(), [](const BenchPage& page) {
    absl::StatusOr<html::GumboTree> tree = html::GumboTree::Parse(page.body, 64 << 20);
    benchmark::DoNotOptimize(tree);
  });
}
BENCHMARK(BM_Phase_GumboTree);

// Url::Parse of every link of the page against the page URL: the floor for any parser.
void BM_Phase_ResolveLinks(benchmark::State& state) {
  RunPages(state, WebsimPages(), [](const BenchPage& page) {
    for (const std::string& href : page.hrefs) {
      benchmark::DoNotOptimize(url::Url::Parse(href, page.url));
    }
  });
}
BENCHMARK(BM_Phase_ResolveLinks);

}  // namespace
}  // namespace crawler::bench
