#include "lib/url/host_key.h"

#include <string>

#include "absl/status/status.h"

namespace crawler::url {

HostKey HostKey::Of(const Url& url) {
  std::string key(url.host());
  if (!url.port().empty()) {
    key.push_back(':');
    key.append(url.port());
  }
  return HostKey(std::move(key));
}

absl::StatusOr<HostKey> HostKey::FromString(std::string_view key) {
  // Anything that would make the parser read past the authority is not a host key.
  if (key.empty() || key.find_first_of("/?#\\@") != std::string_view::npos) {
    return absl::InvalidArgumentError("not a host key");
  }
  // A key ending in ":443" can only come from http, one ending in ":80" only from https.
  const bool ends_in_443 = key.size() > 4 && key.substr(key.size() - 4) == ":443";
  std::string href = ends_in_443 ? "http://" : "https://";
  href.append(key);
  href.push_back('/');
  absl::StatusOr<Url> url = Url::Parse(href);
  if (!url.ok())
    return absl::InvalidArgumentError("not a host key: " + std::string(url.status().message()));
  HostKey parsed = Of(*url);
  if (parsed.key_ != key) return absl::InvalidArgumentError("not a host key in canonical form");
  return parsed;
}

}  // namespace crawler::url
