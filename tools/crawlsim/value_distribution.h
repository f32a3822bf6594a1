// ValueDistribution: the per-page values the simulator draws (change rates, importance weights),
// parsed from the command-line spellings
//   gamma:SHAPE,SCALE     Gamma with mean SHAPE * SCALE (the default model of change rates)
//   lognormal:MU,SIGMA    exp(N(MU, SIGMA^2))
//   list:V1,V2,...        the values in turn, repeated (page i gets V[i mod count])
//   file:PATH or PATH     one value per line ('#' comments and blank lines skipped), repeated
//   const:V               every page gets V
//   mix:W1@SPEC1/W2@SPEC2/...   a mixture: each page draws from SPECi with probability
//                         Wi / sum W (e.g. a static majority and a fast minority:
//                         mix:0.8@lognormal:-6,1/0.2@lognormal:0,1); SPECi is any of the
//                         above except a file or another mixture
// Values are drawn with tools/crawlsim/random.h, so a seed gives the same pages everywhere.
//
// Thread-compatible value type.
#ifndef CRAWLER_TOOLS_CRAWLSIM_VALUE_DISTRIBUTION_H_
#define CRAWLER_TOOLS_CRAWLSIM_VALUE_DISTRIBUTION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::crawlsim {

class Sampler;

class ValueDistribution {
 public:
  // Parses a spec (reading the file of file:PATH). kInvalidArgument for a malformed spec or
  // value (every value must be finite and >= 0; gamma and lognormal parameters as documented),
  // kNotFound for an unreadable file.
  static absl::StatusOr<ValueDistribution> Parse(std::string_view spec);

  // `count` values drawn with `seed`.
  std::vector<double> Draw(int64_t count, uint64_t seed) const;

  // The distribution's mean, when known in closed form (gamma, lognormal) or from its values.
  double mean() const;
  const std::string& spec() const { return spec_; }

 private:
  enum class Kind { kGamma, kLogNormal, kValues, kMixture };
  // One value drawn with `sampler` for page `index`.
  double DrawOne(Sampler& sampler, int64_t index) const;

  Kind kind_ = Kind::kValues;
  double a_ = 0;
  double b_ = 0;
  std::vector<double> values_;
  // kMixture: the components and their cumulative probabilities (the last is 1).
  std::vector<ValueDistribution> components_;
  std::vector<double> cumulative_;
  std::string spec_;
};

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_VALUE_DISTRIBUTION_H_
