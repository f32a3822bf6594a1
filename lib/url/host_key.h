// HostKey: the key of a crawl queue and of politeness state: which server a URL is fetched
// from. It is the URL's host (lower-case ASCII, IDNA applied, as Url::host() gives it) followed by
// ":port" only when the port is not the scheme's default: "example.org", "[2001:db8::1]",
// "example.org:8080".
//
// Why host:port rather than the host alone: two servers on different ports of one host are
// different programs with their own capacity, so they get separate queues, as Heritrix's
// authority-based queues do. Why not scheme as well: http://h/ and https://h/ are almost always
// the same machine, and politeness must count their requests together. Grouping hosts of one
// organisation (registrable domain) or one IP address is a separate, coarser layer.
//
// Thread-safety: immutable value; thread-safe.
#ifndef CRAWLER_LIB_URL_HOST_KEY_H_
#define CRAWLER_LIB_URL_HOST_KEY_H_

#include <compare>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "lib/url/url.h"

namespace crawler::url {

class HostKey {
 public:
  static HostKey Of(const Url& url);

  // Rebuilds a key from its str(), e.g. as stored by the frontier. kInvalidArgument unless `key`
  // is exactly what Of() produces for some http/https URL.
  static absl::StatusOr<HostKey> FromString(std::string_view key);

  const std::string& str() const { return key_; }

  friend bool operator==(const HostKey& a, const HostKey& b) = default;
  friend std::strong_ordering operator<=>(const HostKey& a, const HostKey& b) = default;
  template <typename H>
  friend H AbslHashValue(H h, const HostKey& k) {
    return H::combine(std::move(h), k.key_);
  }

 private:
  explicit HostKey(std::string key) : key_(std::move(key)) {}
  std::string key_;
};

}  // namespace crawler::url

#endif  // CRAWLER_LIB_URL_HOST_KEY_H_
