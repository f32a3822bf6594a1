#include "services/collections/collection_name.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace crawler::collections {

absl::Status ValidateCollectionName(std::string_view name) {
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = !name.empty() && name.size() <= 63 && lower_or_digit(name[0]);
  for (char c : name) ok = ok && (lower_or_digit(c) || c == '_' || c == '-');
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", absl::CEscape(std::string(name.substr(0, 80))),
                     "\" is not a collection name ([a-z0-9][a-z0-9_-]{0,62})"));
  }
  return absl::OkStatus();
}

}  // namespace crawler::collections
