#include "bench/frontier-scale/synthetic_web.h"

#include <algorithm>
#include <charconv>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/random/splitmix64.h"

namespace crawler::bench {
namespace {

using random::Mix64;

constexpr std::string_view kConsonants = "bcdfghjklmnprstvwxyz";  // 20
constexpr std::string_view kVowels = "aeiou";                     // 5
constexpr uint64_t kSyllables = 100;

// Words of paths, sections and slugs: the vocabulary of ordinary sites.
constexpr std::array<std::string_view, 128> kWords = {
    "news",      "blog",     "article",  "products", "category", "tag",       "about",
    "contact",   "services", "support",  "help",     "docs",     "guide",     "events",
    "sport",     "world",    "politics", "business", "culture",  "science",   "health",
    "travel",    "food",     "music",    "video",    "photos",   "reviews",   "opinion",
    "local",     "economy",  "market",   "shop",     "store",    "sale",      "new",
    "best",      "how",      "to",       "the",      "and",      "of",        "for",
    "with",      "your",     "home",     "garden",   "kitchen",  "recipes",   "easy",
    "quick",     "top",      "ten",      "ways",     "make",     "get",       "free",
    "online",    "course",   "learn",    "school",   "university", "research", "report",
    "annual",    "city",     "council",  "meeting",  "minutes",  "public",    "notice",
    "press",     "release",  "company",  "team",     "careers",  "jobs",      "apply",
    "forum",     "thread",   "topic",    "post",     "reply",    "user",      "profile",
    "weather",   "forecast", "climate",  "energy",   "water",    "power",     "car",
    "cars",      "parts",    "review",   "test",     "price",    "buy",       "cheap",
    "winter",    "summer",   "spring",   "autumn",   "holiday",  "hotel",     "beach",
    "mountain",  "walk",     "history",  "museum",   "art",      "gallery",   "book",
    "books",     "author",   "library",  "film",     "series",   "episode",   "season",
    "game",      "player",   "league",   "match",    "result",   "live",      "update",
    "data",      "open"};

constexpr std::array<std::string_view, 10> kSubdomains = {
    "blog", "shop", "news", "m", "en", "forum", "static", "docs", "store", "support"};

struct Tld {
  std::string_view name;
  int weight;
};
constexpr std::array<Tld, 24> kTlds = {{
    {"com", 46}, {"org", 6}, {"net", 5},    {"de", 5},     {"co.uk", 3}, {"ru", 3},
    {"fr", 2},   {"jp", 2},  {"com.br", 2}, {"it", 2},     {"nl", 2},    {"pl", 2},
    {"info", 2}, {"io", 2},  {"es", 1},     {"ca", 1},     {"com.au", 1}, {"in", 1},
    {"ch", 1},   {"se", 1},  {"edu", 1},    {"gov", 1},    {"cz", 1},    {"be", 1},
}};
constexpr int kTldWeights = 94;

// URL shapes; each carries the index in decimal where its literal text delimits it.
enum Style : int {
  kArticle,   // /news/some-slug-words-123.html
  kDated,     // /2019/04/12/some-slug-123/
  kCms,       // /index.php?option=com_content&view=article&id=123&Itemid=45
  kNumeric,   // /news/local/123
  kAspx,      // /en/News/Some_Title_Words_123.aspx
  kWiki,      // /wiki/Some_T%C3%ADtle_(123)
  kShop,      // /product/some-slug-p123?color=red&size=m
  kListing,   // /news/?page=123&sort=date
  kSession,   // /forum/some-slug?sessionid=<32 hex>&ref=123
  kTracking,  // /news/some-slug-123?utm_source=..&utm_medium=..&utm_campaign=..&fbclid=<opaque>
  kShort,     // /news-123
  kStyles
};
// How often a site's main style is each one (a page not in its site's style draws from the same
// weights).
constexpr std::array<int, kStyles> kStyleWeights = {26, 14, 6, 12, 5, 4, 8, 7, 4, 4, 10};

std::string_view Word(uint64_t r) { return kWords[r % kWords.size()]; }

void Put(std::string& out, std::string_view text) { out.append(text); }
void Put(std::string& out, uint64_t number) {
  char digits[20];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, number).ptr);
}
// Appends text and decimal numbers (absl::StrAppend without the string_view conversions).
template <typename... Parts>
void Append(std::string& out, const Parts&... parts) {
  (Put(out, parts), ...);
}

void AppendSyllable(uint64_t s, std::string& out) {
  out.push_back(kConsonants[s / kVowels.size() % kConsonants.size()]);
  out.push_back(kVowels[s % kVowels.size()]);
}

// `words` slug words joined by `sep`, drawn from the stream `r`.
void AppendSlug(uint64_t r, int words, char sep, bool title_case, std::string& out) {
  for (int w = 0; w < words; ++w) {
    if (w > 0) out.push_back(sep);
    r = Mix64(r);
    const size_t start = out.size();
    out.append(Word(r));
    if (title_case) out[start] = static_cast<char>(out[start] - 'a' + 'A');
  }
}

void AppendHex(uint64_t r, int digits, std::string& out) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  for (int i = 0; i < digits; ++i) {
    if (i % 16 == 0) r = Mix64(r + static_cast<uint64_t>(i));
    out.push_back(kHex[(r >> (4 * (i % 16))) & 15]);
  }
}

void AppendOpaque(uint64_t r, int chars, std::string& out) {
  static constexpr std::string_view kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  for (int i = 0; i < chars; ++i) {
    if (i % 10 == 0) r = Mix64(r + static_cast<uint64_t>(i));
    out.push_back(kChars[(r >> (6 * (i % 10))) & 63]);
  }
}

int Pick(uint64_t r, const int* weights, int n, int total) {
  int x = static_cast<int>(r % static_cast<uint64_t>(total));
  for (int i = 0; i < n; ++i) {
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  return n - 1;
}

}  // namespace

struct SyntheticWeb::HostShape {
  uint64_t hash = 0;
  bool https = true;
  Style style = kArticle;
  int sections = 1;
};

SyntheticWeb::SyntheticWeb(const SyntheticWebOptions& options) : seed_(options.seed) {
  const uint32_t hosts = std::max<uint32_t>(1, options.hosts);
  while (std::pow(static_cast<double>(kSyllables), code_syllables_) < hosts) ++code_syllables_;
  std::vector<double> weight(hosts);
  for (uint32_t r = 0; r < hosts; ++r) weight[r] = std::pow(r + 1.0, -options.zipf_exponent);
  const uint64_t want = std::max<uint64_t>(options.urls, hosts);
  auto sizes_for = [&](double scale, std::vector<uint32_t>* out) {
    uint64_t sum = 0;
    for (uint32_t r = 0; r < hosts; ++r) {
      const double s = std::min(4e9, std::max(1.0, std::floor(scale * weight[r] + 0.5)));
      sum += static_cast<uint64_t>(s);
      if (out != nullptr) (*out)[r] = static_cast<uint32_t>(s);
    }
    return sum;
  };
  // The scale whose rounded sizes add up to `want`: bisection (the sum grows with the scale).
  double lo = 0;
  double hi = static_cast<double>(want);
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (sizes_for(mid, nullptr) < want ? lo : hi) = mid;
  }
  sizes_.resize(hosts);
  sizes_for(hi, &sizes_);
  cumulative_.resize(hosts);
  uint64_t sum = 0;
  for (uint32_t h = 0; h < hosts; ++h) cumulative_[h] = sum += sizes_[h];
}

uint32_t SyntheticWeb::HostBySize(uint64_t random) const {
  const uint64_t target = random % total_urls();
  return static_cast<uint32_t>(
      std::upper_bound(cumulative_.begin(), cumulative_.end(), target) - cumulative_.begin());
}

SyntheticWeb::HostShape SyntheticWeb::ShapeOf(uint32_t host) const {
  HostShape shape;
  shape.hash = Mix64(seed_ * 0x2545F4914F6CDD1Dull + host);
  const uint64_t r = Mix64(shape.hash);
  shape.https = r % 100 < 75;
  shape.style = static_cast<Style>(
      Pick(r >> 8, kStyleWeights.data(), kStyles, 100));
  shape.sections = 2 + static_cast<int>((r >> 20) % 11);
  return shape;
}

std::string SyntheticWeb::HostKey(uint32_t host) const {
  const uint64_t r = Mix64(ShapeOf(host).hash ^ 0x5bd1e995);
  std::string key;
  key.reserve(40);
  const uint64_t prefix = r % 100;
  if (prefix < 45) {
    key.append("www.");
  } else if (prefix < 60) {
    key.append(kSubdomains[(r >> 8) % kSubdomains.size()]);
    key.push_back('.');
  }
  // The host code: host id in base 100, most significant syllable first, fixed width.
  uint64_t code = host;
  std::string syllables(static_cast<size_t>(2 * code_syllables_), ' ');
  for (int i = code_syllables_ - 1; i >= 0; --i) {
    std::string one;
    AppendSyllable(code % kSyllables, one);
    syllables[static_cast<size_t>(2 * i)] = one[0];
    syllables[static_cast<size_t>(2 * i + 1)] = one[1];
    code /= kSyllables;
  }
  key.append(syllables);
  const uint64_t extra = (r >> 16) % 10;
  if (extra < 4) {
    for (uint64_t i = 0; i <= extra; ++i) AppendSyllable(Mix64(r + i) % kSyllables, key);
  } else if (extra < 7) {
    key.push_back('-');
    key.append(Word(r >> 24));
  } else if (extra == 7) {
    Append(key, (r >> 32) % 100);
  }
  key.push_back('.');
  int tld_weights[kTlds.size()];
  for (size_t i = 0; i < kTlds.size(); ++i) tld_weights[i] = kTlds[i].weight;
  key.append(kTlds[Pick(r >> 40, tld_weights, kTlds.size(), kTldWeights)].name);
  return key;
}

std::optional<uint32_t> SyntheticWeb::HostOf(std::string_view host_key) const {
  if (host_key.starts_with("www.")) {
    host_key.remove_prefix(4);
  } else if (const size_t dot = host_key.find('.'); dot != std::string_view::npos) {
    const std::string_view label = host_key.substr(0, dot);
    if (std::find(kSubdomains.begin(), kSubdomains.end(), label) != kSubdomains.end()) {
      host_key.remove_prefix(dot + 1);
    }
  }
  if (host_key.size() < static_cast<size_t>(2 * code_syllables_)) return std::nullopt;
  uint64_t host = 0;
  for (int i = 0; i < code_syllables_; ++i) {
    const size_t c = kConsonants.find(host_key[static_cast<size_t>(2 * i)]);
    const size_t v = kVowels.find(host_key[static_cast<size_t>(2 * i + 1)]);
    if (c == std::string_view::npos || v == std::string_view::npos) return std::nullopt;
    host = host * kSyllables + c * kVowels.size() + v;
  }
  if (host >= sizes_.size()) return std::nullopt;
  return static_cast<uint32_t>(host);
}

std::string SyntheticWeb::Url(uint32_t host, uint64_t index) const {
  const HostShape shape = ShapeOf(host);
  std::string url;
  url.reserve(96);
  url.append(shape.https ? "https://" : "http://");
  url.append(HostKey(host));
  url.push_back('/');
  if (index > 0) AppendPath(shape, index, url);
  return url;
}

// Appends the path and query of URL `index` (> 0) after the root's "/".
void SyntheticWeb::AppendPath(const HostShape& shape, uint64_t index, std::string& out) const {
  const uint64_t r = Mix64(shape.hash ^ Mix64(index));
  Style style = shape.style;
  if (r % 4 == 0) style = static_cast<Style>(Pick(r >> 2, kStyleWeights.data(), kStyles, 100));
  // Sections skewed to the site's first few (min of two draws).
  const uint64_t sec_index =
      std::min((r >> 12) % shape.sections, (r >> 20) % shape.sections);
  const std::string_view sec = Word(Mix64(shape.hash + sec_index));
  const std::string_view sub = Word(Mix64(shape.hash + 100 + (r >> 28) % 4));
  const uint64_t s = Mix64(r);  // the slug's stream
  const int slug_words = 2 + static_cast<int>((r >> 32) % 6);
  switch (style) {
    case kArticle:
      Append(out, sec, "/");
      AppendSlug(s, slug_words, '-', false, out);
      Append(out, "-", index, ".html");
      break;
    case kDated:
      Append(out, 2005 + (r >> 40) % 20, "/", 10 + (r >> 45) % 3, "/",
                      10 + (r >> 48) % 19, "/");
      AppendSlug(s, slug_words, '-', false, out);
      Append(out, "-", index, "/");
      break;
    case kCms:
      Append(out, "index.php?option=com_content&view=article&id=", index,
                      "&Itemid=", 100 + (r >> 40) % 400);
      break;
    case kNumeric:
      Append(out, sec, "/", sub, "/", index);
      break;
    case kAspx:
      Append(out, (r >> 40) % 3 == 0 ? "de" : "en", "/", sec, "/");
      AppendSlug(s, slug_words, '_', true, out);
      Append(out, "_", index, ".aspx");
      break;
    case kWiki: {
      out.append("wiki/");
      AppendSlug(s, 1 + slug_words / 2, '_', true, out);
      static constexpr std::array<std::string_view, 6> kEscapes = {
          "%C3%A9", "%E2%80%93", "%27s", "%2C", "%C3%BC", "%C3%B6"};
      if ((r >> 40) % 2 == 0) Append(out, kEscapes[(r >> 41) % kEscapes.size()], "_");
      AppendSlug(Mix64(s), 1, '_', true, out);
      Append(out, "_(", index, ")");
      break;
    }
    case kShop: {
      static constexpr std::array<std::string_view, 5> kColors = {"red", "black", "white",
                                                                  "blue", "green"};
      out.append("product/");
      AppendSlug(s, slug_words, '-', false, out);
      Append(out, "-p", index, "?color=", kColors[(r >> 40) % kColors.size()],
                      "&size=", std::string_view("smlx").substr((r >> 44) % 4, 1));
      break;
    }
    case kListing:
      Append(out, sec, "/?page=", index, "&sort=",
                      (r >> 40) % 2 == 0 ? "date" : "relevance");
      break;
    case kSession:
      Append(out, sec, "/");
      AppendSlug(s, 2, '-', false, out);
      out.append("?sessionid=");
      AppendHex(r ^ 0x9e37, 32, out);
      Append(out, "&ref=", index);
      break;
    case kTracking:
      Append(out, sec, "/");
      AppendSlug(s, slug_words, '-', false, out);
      Append(out, "-", index, "?utm_source=", Word(r >> 40), "&utm_medium=",
                      (r >> 44) % 2 == 0 ? "social" : "email", "&utm_campaign=");
      AppendSlug(Mix64(s + 1), 2, '_', false, out);
      out.append("&fbclid=");
      AppendOpaque(r ^ 0x7f4a, 40 + static_cast<int>((r >> 48) % 40), out);
      break;
    case kShort:
    case kStyles:
      Append(out, sec, "-", index);
      break;
  }
}

}  // namespace crawler::bench
