#include "lib/url/internal/percent_encoding.h"

namespace crawler::url::internal {

using encoding::HexValue;

std::string PercentDecode(std::string_view input) {
  std::string out;
  out.reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] == '%' && i + 2 < input.size() && HexValue(input[i + 1]) >= 0 &&
        HexValue(input[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(input[i + 1]) * 16 + HexValue(input[i + 2])));
      i += 2;
    } else {
      out.push_back(input[i]);
    }
  }
  return out;
}

}  // namespace crawler::url::internal
