#include "lib/sitemap/sitemap_entry.h"

#include <array>
#include <utility>

#include "lib/encoding/ascii.h"

namespace crawler::sitemap {
namespace {

constexpr std::array<std::pair<ChangeFreq, std::string_view>, 7> kChangeFreqNames = {{
    {ChangeFreq::kAlways, "always"},
    {ChangeFreq::kHourly, "hourly"},
    {ChangeFreq::kDaily, "daily"},
    {ChangeFreq::kWeekly, "weekly"},
    {ChangeFreq::kMonthly, "monthly"},
    {ChangeFreq::kYearly, "yearly"},
    {ChangeFreq::kNever, "never"},
}};

}  // namespace

std::string_view ChangeFreqName(ChangeFreq freq) {
  for (const auto& [value, name] : kChangeFreqNames) {
    if (value == freq) return name;
  }
  return "unknown";
}

std::optional<ChangeFreq> ParseChangeFreq(std::string_view text) {
  for (const auto& [value, name] : kChangeFreqNames) {
    if (encoding::EqualsIgnoreCase(text, name)) return value;
  }
  return std::nullopt;
}

}  // namespace crawler::sitemap
