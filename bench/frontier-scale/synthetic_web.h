// SyntheticWeb: the web bench/frontier-scale feeds to a frontier. A fixed set of hosts with
// heavy-tailed sizes (Zipf over the hosts' ranks: a few hosts of millions of URLs, most of a
// handful), and the text of URL i of host h made on demand from (seed, h, i), so a web of 10^8
// URLs costs a few bytes per host and nothing per URL.
//
// The URL text follows the shapes of real crawls rather than one template: a host mostly uses
// one site style (articles with slugs, dated blog posts, CMS query strings, numeric ids, wiki
// titles with percent-escapes, shop pages with parameters, paginated listings, session ids,
// tracking parameters) and sometimes another; a host has a few section words its paths share,
// so a host's URLs share prefixes as real sites' do (which is what a store's prefix and block
// compression see). Length: mean ~69 bytes, median ~62, 99th percentile ~170 (the bench prints
// the distribution of the URLs it generates). Host names: optional "www." or a subdomain word,
// a name of pronounceable syllables, and a TLD drawn from a weighted list.
//
// Every (h, i) gives a distinct URL, and distinct hosts distinct host names: a host name starts
// (after its optional prefix) with syllables that encode h in a fixed-width positional code, and
// every URL shape carries i in decimal at a place its literal text delimits. So "new" in the
// bench is exact: a URL the bench has not offered before is one the frontier cannot know.
//
// Thread-safety: immutable after construction; every method is const and thread-safe.
#ifndef CRAWLER_BENCH_FRONTIER_SCALE_SYNTHETIC_WEB_H_
#define CRAWLER_BENCH_FRONTIER_SCALE_SYNTHETIC_WEB_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crawler::bench {

struct SyntheticWebOptions {
  uint32_t hosts = 1'000'000;
  // The sum of the hosts' sizes (every host has at least one URL, its root).
  uint64_t urls = 100'000'000;
  // Host of rank r (0-based) has a size proportional to (r + 1)^-zipf_exponent.
  double zipf_exponent = 1.0;
  uint64_t seed = 1;
};

class SyntheticWeb {
 public:
  explicit SyntheticWeb(const SyntheticWebOptions& options);

  uint32_t hosts() const { return static_cast<uint32_t>(sizes_.size()); }
  // The sum of Size() over all hosts (close to options.urls; exact only up to rounding).
  uint64_t total_urls() const { return cumulative_.empty() ? 0 : cumulative_.back(); }
  // URLs host `host` has in the whole web; URL 0 is its root.
  uint64_t Size(uint32_t host) const { return sizes_[host]; }

  // The host key ("www.kobate.com"), as lib/url's HostKey gives it (no port: the default).
  std::string HostKey(uint32_t host) const;
  // The host a HostKey() names; nullopt for a name this web did not make.
  std::optional<uint32_t> HostOf(std::string_view host_key) const;
  // URL `index` (< Size(host)) of `host`, canonical ("https://www.kobate.com/news/...").
  std::string Url(uint32_t host, uint64_t index) const;

  // A host drawn with probability proportional to its size, from a uniform 64-bit `random`
  // (the site a link points to: big sites are linked more).
  uint32_t HostBySize(uint64_t random) const;

 private:
  struct HostShape;
  HostShape ShapeOf(uint32_t host) const;
  void AppendPath(const HostShape& shape, uint64_t index, std::string& out) const;

  const uint64_t seed_;
  // Syllables of the host code: enough that every host id has its own.
  int code_syllables_ = 3;
  std::vector<uint32_t> sizes_;
  std::vector<uint64_t> cumulative_;  // cumulative_[h] = sizes of hosts 0..h
};

}  // namespace crawler::bench

#endif  // CRAWLER_BENCH_FRONTIER_SCALE_SYNTHETIC_WEB_H_
