#include "services/common/config/flag_binding.h"

namespace crawler::config::internal {

std::string FlagTypeName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBool:
      return "BOOL";
    case ValueKind::kInteger:
      return "N";
    case ValueKind::kDouble:
      return "X";
    case ValueKind::kDuration:
    case ValueKind::kDays:
      return "DURATION";
    case ValueKind::kString:
    case ValueKind::kStringList:
      return "TEXT";
    case ValueKind::kVisitRate:
      return "RATE";
  }
  return "VALUE";
}

}  // namespace crawler::config::internal
