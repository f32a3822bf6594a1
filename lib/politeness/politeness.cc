#include "lib/politeness/politeness.h"

namespace crawler::politeness {

Politeness::Exchanged Politeness::Exchange(std::span<const ReleaseRequest> releases,
                                           std::span<const ClaimRequest> claims) {
  Exchanged out;
  out.released.reserve(releases.size());
  for (const ReleaseRequest& r : releases) out.released.push_back(Release(r));
  out.claimed.reserve(claims.size());
  for (const ClaimRequest& c : claims) out.claimed.push_back(Claim(c));
  return out;
}

}  // namespace crawler::politeness
