// Tests for lib/partition: the jump consistent hash of Lamping & Veach (2014) and the host ->
// partition contract of docs/architecture.md §4.
//
// Statistical bounds: with a uniform hash, the number of the N synthetic hosts that land in one
// bucket (or that move when n grows) is Binomial(N, p). Every such count is checked against
// N*p +/- 5 standard deviations; for a correct implementation the chance that any of the (at most
// a few hundred) checked counts falls outside is below 1e-4 (two-sided 5-sigma tail 5.7e-7 per
// count, union bound), while a real bias of a few percent is far outside. The host set is fixed,
// so the outcome is deterministic; the bound says a correct hash passes for all but a negligible
// fraction of host sets. A fixed "+/- 5 % of the mean" bound would be wrong in both directions:
// for n = 64 (1,562 hosts per bucket, sigma = 39) it is only 2 sigma and a correct hash fails it
// about half the time; for n = 2 it is 32 sigma and would let a 4 % bias through.
#include "lib/partition/partition.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crawler::partition {
namespace {

constexpr int kNumHosts = 100'000;
constexpr double kSigmas = 5.0;

// Synthetic hosts shaped like real ones: several TLDs, optional www / subdomains, numbered names.
// Similar keys are the hard case for a hash, so they are deliberately close to each other.
std::vector<std::string> SyntheticHosts(int count) {
  static constexpr const char* kTlds[] = {"com", "org", "net", "de", "co.uk", "ru", "io", "fr"};
  static constexpr const char* kPrefixes[] = {"", "www.", "blog.", "shop.", "news."};
  std::vector<std::string> hosts;
  hosts.reserve(count);
  for (int i = 0; i < count; ++i) {
    hosts.push_back(std::string(kPrefixes[i % 5]) + "site" + std::to_string(i) + "." +
                    kTlds[(i / 5) % 8]);
  }
  return hosts;
}

// Upper quantile of the chi-squared distribution with k degrees of freedom for the standard normal
// quantile z (Wilson-Hilferty; accurate to a fraction of a percent for k >= 1 at these tails).
double ChiSquaredQuantile(int k, double z) {
  const double a = 2.0 / (9.0 * k);
  const double c = 1.0 - a + z * std::sqrt(a);
  return k * c * c * c;
}

// Known answers of the published algorithm (the same vectors the go-jump, jmphash-rs and
// ClickHouse implementations pin), so this is the paper's function and not merely a consistent
// hash of our own.
TEST(LampingVeach2014, KnownAnswers) {
  struct Case {
    uint64_t key;
    uint32_t buckets;
    uint32_t want;
  };
  const Case cases[] = {
      {1, 1, 0},
      {42, 57, 43},
      {256, 1024, 520},
      {0xDEAD10CC, 1, 0},
      {0xDEAD10CC, 666, 361},
      {16045690984833335023ULL, 255, 237},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(JumpConsistentHash(c.key, c.buckets), c.want)
        << "key " << c.key << " buckets " << c.buckets;
  }
}

TEST(LampingVeach2014, ResultAlwaysInRangeUpToMaxBuckets) {
  for (uint64_t key : {0ULL, 1ULL, 0xFFFFFFFFFFFFFFFFULL, 0x8000000000000000ULL, 12345ULL}) {
    for (uint32_t n : {1U, 2U, 3U, 1000U, 0x7FFFFFFFU, 0x80000000U, 0xFFFFFFFFU}) {
      EXPECT_LT(JumpConsistentHash(key, n), n) << key << " " << n;
    }
  }
}

TEST(LampingVeach2014, OneBucketTakesEverything) {
  for (uint64_t key = 0; key < 1000; ++key) EXPECT_EQ(JumpConsistentHash(key * 7919, 1), 0U);
}

TEST(LampingVeach2014, ZeroBucketsIsAProgrammingError) {
  EXPECT_DEATH(JumpConsistentHash(1, 0), "num_buckets >= 1");
  EXPECT_DEATH(Partition("example.com", 0), "num_buckets >= 1");
}

// The key hashed is XXH64 with seed 0 (reference values of the xxHash specification), of the
// lowercased host.
TEST(Design4_Partition, HostKeyHashIsXxh64Seed0) {
  EXPECT_EQ(HostKeyHash(""), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(HostKeyHash("abc"), 0x44BC2CF5AD770999ULL);
  EXPECT_EQ(HostKeyHash("ABC"), 0x44BC2CF5AD770999ULL);
}

// Pinned assignments: the on-disk / on-wire contract (values cross-checked against an independent
// Python transcription of the paper's algorithm). If this test fails, every deployed crawl would
// reshard on upgrade; change these values only together with a migration plan.
TEST(Design4_Partition, PinnedAssignmentsAreTheContract) {
  struct Case {
    const char* host;
    uint32_t n;
    uint32_t want;
  };
  const Case cases[] = {
      {"example.com", 2, 1},
      {"example.com", 64, 51},
      {"example.com", 1000, 154},
      {"www.example.org", 8, 5},
      {"www.example.org", 1000, 695},
      {"xn--bcher-kva.example", 8, 7},
      {"xn--bcher-kva.example", 64, 14},
      {"192.0.2.1", 64, 55},
      {"[2001:db8::1]", 1000, 763},
      {"news.bbc.co.uk", 8, 1},
      {"news.bbc.co.uk", 64, 56},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Partition(c.host, c.n), c.want) << c.host << " n=" << c.n;
  }
}

TEST(Design4_Partition, HostKeysAreCaseInsensitive) {
  const std::vector<std::string> hosts = SyntheticHosts(2000);
  for (const std::string& host : hosts) {
    std::string upper = host;
    for (char& ch : upper) {
      if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
    }
    ASSERT_NE(upper, host);
    for (uint32_t n : {2U, 8U, 64U, 1000U}) {
      EXPECT_EQ(Partition(upper, n), Partition(host, n)) << host;
    }
  }
  EXPECT_EQ(Partition("WwW.ExAmPlE.CoM", 97), Partition("www.example.com", 97));
  // Only ASCII is folded: non-ASCII bytes are hashed unchanged (hosts are IDNA A-labels).
  EXPECT_NE(HostKeyHash("\xC3\x84.example"), HostKeyHash("\xC3\xA4.example"));
}

TEST(Design4_Partition, NearbyHostsAreNotCorrelated) {
  // Hosts differing in one character must not systematically share or neighbour a partition.
  int same = 0;
  for (int i = 0; i < 10'000; ++i) {
    if (Partition("site" + std::to_string(i) + ".com", 64) ==
        Partition("site" + std::to_string(i + 1) + ".com", 64)) {
      ++same;
    }
  }
  // Expected 10000/64 = 156, sigma = 12.4.
  EXPECT_NEAR(same, 156.25, kSigmas * 12.4);
}

class BalanceTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(BalanceTest, HostsSpreadEvenlyOverPartitions) {
  const uint32_t n = GetParam();
  const std::vector<std::string> hosts = SyntheticHosts(kNumHosts);
  std::vector<int> counts(n, 0);
  for (const std::string& host : hosts) {
    const uint32_t p = Partition(host, n);
    ASSERT_LT(p, n);
    ++counts[p];
  }
  const double p = 1.0 / n;
  const double mean = kNumHosts * p;
  const double sigma = std::sqrt(kNumHosts * p * (1 - p));
  int min_count = kNumHosts;
  int max_count = 0;
  double chi2 = 0;
  for (uint32_t b = 0; b < n; ++b) {
    EXPECT_NEAR(counts[b], mean, kSigmas * sigma) << "bucket " << b;
    min_count = std::min(min_count, counts[b]);
    max_count = std::max(max_count, counts[b]);
    chi2 += (counts[b] - mean) * (counts[b] - mean) / mean;
  }
  // Goodness of fit over all buckets together, at the same 1e-4 level (z = 3.719).
  const double chi2_limit = ChiSquaredQuantile(static_cast<int>(n) - 1, 3.719);
  EXPECT_LT(chi2, chi2_limit);
  std::printf("n=%u: mean %.1f sigma %.1f, min %d (%+.2f%%) max %d (%+.2f%%), chi2 %.1f < %.1f\n",
              n, mean, sigma, min_count, 100.0 * (min_count - mean) / mean, max_count,
              100.0 * (max_count - mean) / mean, chi2, chi2_limit);
}

INSTANTIATE_TEST_SUITE_P(Design4_Partition, BalanceTest, ::testing::Values(2U, 8U, 64U));

class GrowthTest : public ::testing::TestWithParam<uint32_t> {};

// Growing from n to n + 1 partitions moves ~1/(n + 1) of the hosts, all of them into the new
// partition n: no host moves between two old partitions (the monotonicity Lamping & Veach prove).
TEST_P(GrowthTest, GrowingByOneMovesOneOverNPlusOneOnlyToTheNewPartition) {
  const uint32_t n = GetParam();
  const std::vector<std::string> hosts = SyntheticHosts(kNumHosts);
  int moved = 0;
  int moved_between_old = 0;
  for (const std::string& host : hosts) {
    const uint32_t before = Partition(host, n);
    const uint32_t after = Partition(host, n + 1);
    if (before != after) {
      ++moved;
      if (after != n) ++moved_between_old;
    }
  }
  const double p = 1.0 / (n + 1);
  const double expected = kNumHosts * p;
  const double sigma = std::sqrt(kNumHosts * p * (1 - p));
  EXPECT_EQ(moved_between_old, 0);
  EXPECT_NEAR(moved, expected, kSigmas * sigma);
  std::printf("n=%u -> %u: moved %d of %d (%.3f%%), expected 1/(n+1) = %.3f%%\n", n, n + 1,
              moved, kNumHosts, 100.0 * moved / kNumHosts, 100.0 * p);
}

INSTANTIATE_TEST_SUITE_P(Design4_Partition, GrowthTest,
                         ::testing::Values(1U, 2U, 3U, 7U, 8U, 15U, 63U, 64U, 100U));

// Growing by several steps at once (n -> m) keeps n/m of the hosts where they were.
TEST(Design4_Partition, GrowingSeveralStepsKeepsNOverMInPlace) {
  const std::vector<std::string> hosts = SyntheticHosts(kNumHosts);
  const uint32_t n = 8;
  const uint32_t m = 12;
  int stayed = 0;
  for (const std::string& host : hosts) {
    const uint32_t before = Partition(host, n);
    const uint32_t after = Partition(host, m);
    if (before == after) {
      ++stayed;
    } else {
      EXPECT_GE(after, n) << host;  // a host only ever moves to a new partition
    }
  }
  const double p = static_cast<double>(n) / m;
  EXPECT_NEAR(stayed, kNumHosts * p, kSigmas * std::sqrt(kNumHosts * p * (1 - p)));
}

}  // namespace
}  // namespace crawler::partition
