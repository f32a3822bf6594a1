// The input of the micro-benchmarks: pages of a websim web (tools/websim) with the options
// bench/standalone uses (page bytes 2048-8192), rendered in process, and their visible text as
// lib/html extracts it for the fingerprint. The same pages on every run (fixed seed).
//
// Thread-safety: WebsimCorpus() builds the corpus once (function-local static) and returns a
// const reference; safe to call from any thread.
#ifndef CRAWLER_BENCH_MICRO_WEBSIM_CORPUS_H_
#define CRAWLER_BENCH_MICRO_WEBSIM_CORPUS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace crawler::bench {

struct CorpusPage {
  std::string url;
  std::string http_response;  // status line, headers and body as websim sends them
  std::string body;           // the HTML
  std::string text;           // visible text (html::ExtractPage)
};

struct Corpus {
  std::vector<CorpusPage> pages;
  size_t body_bytes = 0;
  size_t text_bytes = 0;
  size_t response_bytes = 0;
};

// 400 pages: every page id of hosts 0..7 of a 200-host, 60-page web, seed 1 (bench/standalone's
// defaults), public and private alike.
const Corpus& WebsimCorpus();

}  // namespace crawler::bench

#endif  // CRAWLER_BENCH_MICRO_WEBSIM_CORPUS_H_
