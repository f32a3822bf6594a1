#include "lib/encoding/ascii.h"

namespace crawler::encoding {

std::string ToAsciiLower(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) c = ToAsciiLower(c);
  return lower;
}

}  // namespace crawler::encoding
