#include "services/frontier/local_frontier_client.h"

namespace crawler::frontier {

absl::StatusOr<std::vector<std::optional<UrlRecord>>> LocalFrontierClient::LookupUrls(
    const std::vector<std::string>& canonical_urls) {
  std::vector<std::optional<UrlRecord>> records;
  records.reserve(canonical_urls.size());
  for (const std::string& url : canonical_urls) {
    absl::StatusOr<UrlRecord> record = frontier_.LookupUrl(url);
    if (record.ok()) {
      records.push_back(*std::move(record));
    } else if (absl::IsNotFound(record.status())) {
      records.push_back(std::nullopt);
    } else {
      return record.status();
    }
  }
  return records;
}

}  // namespace crawler::frontier
