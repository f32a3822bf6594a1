// change_bench: precision and recall of the crawler's change detection and near-duplicate
// detection on websim's labelled change corpus (tools/websim/change_corpus.h), next to a MinHash
// baseline with the settings of the .gov.si crawler (250 hash functions over word shingles,
// Jaccard >= 0.99, all pairs compared). docs/fingerprint.md shows the tables.
//
// The crawler's path is the fetcher's and the frontier's: html::ExtractPage's visible text and
// main content text, ComputeSimHash of the one and ComputeChangeDigest of the other, and
// "changed" as fingerprint::ContentChanged decides with the default options (the digests
// differ; the SimHash rule only where a page has no digest). Next to it the SimHash-only rule
// the crawler used before digests ("changed" iff the Hamming distance exceeds the default
// threshold). "Near-duplicate" iff the SimHashes are within the dedup service's default
// radius; the main content's digest and SimHash are shown as duplicate detectors too. The
// MinHash baseline is implemented here only (lowercased alphanumeric words of the same visible
// text, numbers kept, shingles of --minhash-words words), so the crawler carries no second
// detector.
//
//   change_bench [--pages N] [--pairs N] [--seed S] [--furniture-markup marked|plain]
//                [--min-precision P --min-recall R]
// --furniture-markup plain: the corpus's furniture without its semantic elements and class
// names (websim::ChangeCorpusOptions::furniture_markup), to show what the extraction's
// structure rules contribute.
// Prints markdown tables; with --min-precision / --min-recall exits 1 when "changed" as the
// crawler decides it by default falls below them. Exit 2 on bad usage.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/fingerprint/change_detection.h"
#include "lib/fingerprint/change_digest.h"
#include "lib/fingerprint/simhash.h"
#include "lib/html/extract_page.h"
#include "lib/random/splitmix64.h"
#include "lib/url/url.h"
#include "services/dedup/dedup.h"
#include "tools/websim/change_corpus.h"

namespace {

using crawler::fingerprint::ComputeChangeDigest;
using crawler::fingerprint::ComputeSimHash;
using crawler::fingerprint::ContentSignature;
using crawler::fingerprint::HammingDistance;
using crawler::fingerprint::SimHash64;

// The dedup service's default near-duplicate radius.
const int kDedupRadiusBits = crawler::dedup::DedupOptions{}.near_duplicate_bits;
constexpr int kMinHashFunctions = 250;
constexpr double kMinHashThreshold = 0.99;

struct Options {
  int pages = 200;
  int pairs = 100;
  uint64_t seed = 1;
  int minhash_words = 3;
  double min_precision = -1;
  double min_recall = -1;
  bool furniture_markup = true;
};

crawler::html::ExtractedPage Extract(const std::string& html, const std::string& url) {
  absl::StatusOr<crawler::url::Url> parsed = crawler::url::Url::Parse(url);
  if (!parsed.ok()) return {};
  absl::StatusOr<crawler::html::ExtractedPage> page =
      crawler::html::ExtractPage(html, *parsed, "text/html; charset=utf-8");
  return page.ok() ? *std::move(page) : crawler::html::ExtractedPage();
}

uint64_t HashBytes(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, then mixed
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return crawler::random::Mix64(h);
}

using MinHash = std::array<uint64_t, kMinHashFunctions>;

MinHash ComputeMinHash(std::string_view text, int shingle_words) {
  std::vector<uint64_t> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(HashBytes(word));
    word.clear();
  };
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  MinHash signature;
  signature.fill(~uint64_t{0});
  const size_t n = words.size() < static_cast<size_t>(shingle_words) ? 1 : words.size() - shingle_words + 1;
  for (size_t i = 0; i < n && !words.empty(); ++i) {
    uint64_t shingle = 0;
    for (size_t j = i; j < std::min(words.size(), i + shingle_words); ++j) {
      shingle = crawler::random::Mix64(shingle ^ words[j]);
    }
    for (int f = 0; f < kMinHashFunctions; ++f) {
      signature[f] = std::min(signature[f],
                              crawler::random::Mix64(shingle ^ (0x9e3779b97f4a7c15ULL * (f + 1))));
    }
  }
  return signature;
}

double Jaccard(const MinHash& a, const MinHash& b) {
  int equal = 0;
  for (int f = 0; f < kMinHashFunctions; ++f) equal += a[f] == b[f] ? 1 : 0;
  return static_cast<double>(equal) / kMinHashFunctions;
}

struct Counts {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  void Add(bool predicted, bool actual) {
    if (predicted && actual) ++tp;
    if (predicted && !actual) ++fp;
    if (!predicted && actual) ++fn;
    if (!predicted && !actual) ++tn;
  }
  double precision() const { return tp + fp > 0 ? static_cast<double>(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn > 0 ? static_cast<double>(tp) / (tp + fn) : 1.0; }
};

struct Doc {
  ContentSignature signature;  // what the fetcher sends the frontier
  SimHash64 main_simhash;      // SimHash of the main content text
  MinHash minhash;
};

Doc Fingerprint(const std::string& html, const std::string& url, int shingle_words) {
  const crawler::html::ExtractedPage page = Extract(html, url);
  return Doc{ContentSignature{ComputeSimHash(page.text), ComputeChangeDigest(page.main_text)},
             ComputeSimHash(page.main_text), ComputeMinHash(page.text, shingle_words)};
}

bool SameDigest(const Doc& a, const Doc& b) {
  return a.signature.digest.has_value() && a.signature.digest == b.signature.digest;
}

bool ParseArgs(int argc, char** argv, Options& options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const absl::string_view value = argv[i + 1];
    bool ok = false;
    if (flag == "--pages") ok = absl::SimpleAtoi(value, &options.pages) && options.pages > 0;
    if (flag == "--pairs") ok = absl::SimpleAtoi(value, &options.pairs) && options.pairs > 0;
    if (flag == "--seed") ok = absl::SimpleAtoi(value, &options.seed);
    if (flag == "--minhash-words") {
      ok = absl::SimpleAtoi(value, &options.minhash_words) && options.minhash_words > 0;
    }
    if (flag == "--min-precision") ok = absl::SimpleAtod(value, &options.min_precision);
    if (flag == "--min-recall") ok = absl::SimpleAtod(value, &options.min_recall);
    if (flag == "--furniture-markup") {
      ok = value == "marked" || value == "plain";
      options.furniture_markup = value == "marked";
    }
    if (!ok) return false;
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseArgs(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: change_bench [--pages N] [--pairs N] [--seed S] [--minhash-words W] "
                 "[--furniture-markup marked|plain] [--min-precision P] [--min-recall R]\n");
    return 2;
  }
  const crawler::websim::ChangeCorpus corpus = crawler::websim::BuildChangeCorpus(
      {.seed = options.seed,
       .pages = options.pages,
       .duplicate_pairs = options.pairs,
       .furniture_markup = options.furniture_markup});
  const crawler::fingerprint::ChangeDetectionOptions defaults;
  const int threshold = defaults.threshold_bits;

  // --- "changed" on version pairs.
  struct Scored {
    crawler::websim::EditKind kind;
    bool changed;
    bool crawler_changed;  // ContentChanged with the defaults
    bool digest_differs;   // the main content's digests differ (or one page has none)
    int distance;          // SimHash distance of the visible text
    double jaccard;
  };
  std::vector<Scored> scored;
  int without_digest = 0;
  for (const crawler::websim::VersionPair& pair : corpus.versions) {
    const Doc before = Fingerprint(pair.before_html, pair.before_url, options.minhash_words);
    const Doc after = Fingerprint(pair.after_html, pair.before_url, options.minhash_words);
    if (!before.signature.digest || !after.signature.digest) ++without_digest;
    scored.push_back(
        {pair.kind, pair.changed,
         crawler::fingerprint::ContentChanged(before.signature, after.signature, defaults)
             .value_or(false),
         !SameDigest(before, after),
         HammingDistance(*before.signature.simhash, *after.signature.simhash),
         Jaccard(before.minhash, after.minhash)});
  }
  Counts crawler_default;
  Counts simhash_default;
  Counts minhash_default;
  for (const Scored& s : scored) {
    crawler_default.Add(s.crawler_changed, s.changed);
    simhash_default.Add(s.distance > threshold, s.changed);
    minhash_default.Add(s.jaccard < kMinHashThreshold, s.changed);
  }
  std::printf("change corpus: %d pages x %d edit kinds, seed %llu, furniture %s; %d of %zu "
              "pairs without a change digest on a side\n\n",
              options.pages, crawler::websim::kEditKinds,
              static_cast<unsigned long long>(options.seed),
              options.furniture_markup ? "marked up" : "in plain markup", without_digest,
              scored.size());
  std::printf("## \"changed\" at the defaults\n\n| detector | precision | recall | TP | FP | FN | TN |\n|---|---|---|---|---|---|---|\n");
  const auto row = [](const std::string& name, const Counts& c) {
    std::printf("| %s | %.3f | %.3f | %d | %d | %d | %d |\n", name.c_str(), c.precision(),
                c.recall(), c.tp, c.fp, c.fn, c.tn);
  };
  row("main-content change digest differs (crawler default)", crawler_default);
  row(absl::StrFormat("SimHash of the visible text, distance > %d bits (before digests)",
                      threshold),
      simhash_default);
  row(absl::StrFormat("MinHash %d x %d-word shingles, Jaccard < %.2f", kMinHashFunctions,
                      options.minhash_words, kMinHashThreshold),
      minhash_default);

  std::printf("\n## Share of pairs reported \"changed\", per edit kind\n\n| edit | real | digest (crawler) | SimHash > %d | MinHash < %.2f | SimHash distance: median (max) |\n|---|---|---|---|---|---|\n",
              threshold, kMinHashThreshold);
  for (int k = 0; k < crawler::websim::kEditKinds; ++k) {
    const auto kind = static_cast<crawler::websim::EditKind>(k);
    std::vector<int> distances;
    int crawler_flagged = 0;
    int simhash_flagged = 0;
    int minhash_flagged = 0;
    for (const Scored& s : scored) {
      if (s.kind != kind) continue;
      distances.push_back(s.distance);
      crawler_flagged += s.crawler_changed ? 1 : 0;
      simhash_flagged += s.distance > threshold ? 1 : 0;
      minhash_flagged += s.jaccard < kMinHashThreshold ? 1 : 0;
    }
    std::sort(distances.begin(), distances.end());
    const double n = static_cast<double>(distances.size());
    std::printf("| %s | %s | %.2f | %.2f | %.2f | %d (%d) |\n",
                std::string(crawler::websim::EditKindName(kind)).c_str(),
                crawler::websim::IsRealEdit(kind) ? "yes" : "no", crawler_flagged / n,
                simhash_flagged / n, minhash_flagged / n, distances[distances.size() / 2],
                distances.back());
  }

  std::printf("\n## \"changed\" over thresholds\n\nThe digest is exact, so its curve is over a "
              "SimHash guard: changed iff the digests differ and the SimHash distance > g "
              "(g = -1: no guard, the crawler's rule). Next to it the SimHash-only rule, changed "
              "iff distance > t.\n\n| g or t | digest, guard g: precision | recall | SimHash > t: precision | recall |\n|---|---|---|---|---|\n");
  for (int t = -1; t <= 16; ++t) {
    Counts guarded;
    Counts simhash;
    for (const Scored& s : scored) {
      guarded.Add(s.digest_differs && s.distance > t, s.changed);
      simhash.Add(s.distance > t, s.changed);
    }
    std::printf("| %d%s | %.3f | %.3f | %.3f | %.3f |\n", t,
                t == -1 ? " (crawler)" : (t == threshold ? " (SimHash default)" : ""),
                guarded.precision(), guarded.recall(), simhash.precision(), simhash.recall());
  }
  std::printf("\n## \"changed\" over MinHash thresholds (changed iff Jaccard < j)\n\n| j | precision | recall |\n|---|---|---|\n");
  for (double j : {0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 1.0}) {
    Counts c;
    for (const Scored& s : scored) c.Add(s.jaccard < j, s.changed);
    std::printf("| %.3f%s | %.3f | %.3f |\n", j, j == kMinHashThreshold ? " (.gov.si)" : "",
                c.precision(), c.recall());
  }

  // --- near-duplicates across hosts: every pair of documents of the duplicate pairs.
  std::vector<Doc> docs;
  std::vector<int> pair_of;
  std::vector<bool> mirror_of;
  for (const crawler::websim::DuplicatePair& pair : corpus.duplicates) {
    docs.push_back(Fingerprint(pair.first_html, pair.first_url, options.minhash_words));
    docs.push_back(Fingerprint(pair.second_html, pair.second_url, options.minhash_words));
    for (int i = 0; i < 2; ++i) {
      pair_of.push_back(pair.pair);
      mirror_of.push_back(pair.mirror);
    }
  }
  std::map<int, Counts> simhash_curve;
  std::map<int, Counts> main_simhash_curve;
  std::map<double, Counts> minhash_curve;
  Counts digest_equal;
  const std::vector<double> jaccards = {0.5, 0.7, 0.8, 0.9, 0.95, 0.99};
  int template_pairs = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    for (size_t j = i + 1; j < docs.size(); ++j) {
      const bool duplicate = pair_of[i] == pair_of[j] && mirror_of[i];
      const int distance = HammingDistance(*docs[i].signature.simhash, *docs[j].signature.simhash);
      const int main_distance = HammingDistance(docs[i].main_simhash, docs[j].main_simhash);
      const double jaccard = Jaccard(docs[i].minhash, docs[j].minhash);
      for (int t = 0; t <= 16; ++t) {
        simhash_curve[t].Add(distance <= t, duplicate);
        main_simhash_curve[t].Add(main_distance <= t, duplicate);
      }
      for (double x : jaccards) minhash_curve[x].Add(jaccard >= x, duplicate);
      digest_equal.Add(SameDigest(docs[i], docs[j]), duplicate);
      if (pair_of[i] == pair_of[j] && !mirror_of[i]) ++template_pairs;
    }
  }
  const size_t n = docs.size();
  std::printf("\n## Near-duplicates across hosts: %zu documents, all %zu pairs (%d mirrors, %d template pairs)\n\n",
              n, n * (n - 1) / 2, options.pairs, template_pairs);
  std::printf("| detector | precision | recall | TP | FP | FN |\n|---|---|---|---|---|---|\n");
  const auto dup_row = [](const std::string& name, const Counts& c) {
    std::printf("| %s | %.3f | %.3f | %d | %d | %d |\n", name.c_str(), c.precision(), c.recall(),
                c.tp, c.fp, c.fn);
  };
  dup_row(absl::StrFormat("SimHash of the visible text, distance <= %d bits (dedup default)",
                          kDedupRadiusBits),
          simhash_curve[kDedupRadiusBits]);
  dup_row(absl::StrFormat("SimHash of the main content text, distance <= %d bits",
                          kDedupRadiusBits),
          main_simhash_curve[kDedupRadiusBits]);
  dup_row("main-content change digest equal", digest_equal);
  dup_row(absl::StrFormat("MinHash %d x %d-word shingles, Jaccard >= %.2f", kMinHashFunctions,
                          options.minhash_words, kMinHashThreshold),
          minhash_curve[kMinHashThreshold]);
  std::printf("\n| SimHash radius k (duplicate iff distance <= k) | visible text: precision | recall | main content: precision | recall |\n|---|---|---|---|---|\n");
  for (const auto& [t, c] : simhash_curve) {
    const Counts& m = main_simhash_curve[t];
    std::printf("| %d%s | %.3f | %.3f | %.3f | %.3f |\n", t,
                t == kDedupRadiusBits ? " (default)" : "", c.precision(), c.recall(),
                m.precision(), m.recall());
  }
  std::printf("\n| MinHash Jaccard j (duplicate iff >= j) | precision | recall |\n|---|---|---|\n");
  for (const auto& [x, c] : minhash_curve) {
    std::printf("| %.2f%s | %.3f | %.3f |\n", x, x == kMinHashThreshold ? " (.gov.si)" : "",
                c.precision(), c.recall());
  }

  bool ok = true;
  if (options.min_precision >= 0 && crawler_default.precision() < options.min_precision) {
    ok = false;
  }
  if (options.min_recall >= 0 && crawler_default.recall() < options.min_recall) ok = false;
  if (!ok) {
    std::fprintf(stderr, "change_bench: \"changed\" at the crawler's defaults: precision %.3f, "
                         "recall %.3f, below the required %.3f / %.3f\n",
                 crawler_default.precision(), crawler_default.recall(), options.min_precision,
                 options.min_recall);
  }
  return ok ? 0 : 1;
}
