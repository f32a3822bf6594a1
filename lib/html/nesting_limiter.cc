#include "lib/html/nesting_limiter.h"

#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/html/internal/html_scanner.h"

namespace crawler::html {
namespace {

// Turns the scanner's drops and defanged '<' into edits of the markup.
class Limiter : public internal::ScanListener {
 public:
  explicit Limiter(std::string& html) : html_(html) {}

  void DroppedTag(size_t begin, size_t end) override {
    // The whole tag goes; attribute drops inside it are subsumed.
    while (!edits_.empty() && edits_.back().begin > begin) edits_.pop_back();
    // A '<' just before the tag is text ("<<div>"); with the tag gone it would open markup
    // with what follows: it becomes "&lt;".
    if (begin > 0 && html_[begin - 1] == '<' &&
        (edits_.empty() || edits_.back().end < begin)) {
      edits_.push_back(Edit{begin - 1, begin, "&lt;"});
    }
    edits_.push_back(Edit{begin, end, ""});
  }
  void DroppedAttributes(size_t begin, size_t end, size_t /*count*/) override {
    edits_.push_back(Edit{begin, end, ""});
  }
  void Defanged(size_t pos, bool escapable) override {
    if (escapable) {
      edits_.push_back(Edit{pos, pos + 1, "&lt;"});
    } else {
      html_[pos] = ' ';  // the scanner has read past it
    }
  }

  void Apply() {
    if (edits_.empty()) return;
    std::string out;
    out.reserve(html_.size());
    size_t copied = 0;
    for (const Edit& edit : edits_) {
      // Edits come in scan order; anything else is a bug here, and would corrupt the page.
      if (edit.begin < copied || edit.end < edit.begin) std::abort();
      out.append(html_, copied, edit.begin - copied);
      out.append(edit.replacement);
      copied = edit.end;
    }
    out.append(html_, copied, std::string::npos);
    html_ = std::move(out);
  }

 private:
  // html_[begin, end) becomes `replacement`. Edits are made in increasing, non-overlapping
  // order as the scan goes, and applied in one copy at the end.
  struct Edit {
    size_t begin;
    size_t end;
    std::string_view replacement;
  };

  std::string& html_;
  std::vector<Edit> edits_;
};

}  // namespace

NestingLimitReport LimitNesting(std::string& html, const NestingLimits& limits) {
  Limiter limiter(html);
  const internal::ScanReport scan = internal::ScanHtml(html, limits, limiter);
  limiter.Apply();
  return NestingLimitReport{scan.dropped_start_tags, scan.dropped_attributes, scan.defanged,
                            scan.max_modelled_depth, scan.final_modelled_depth};
}

}  // namespace crawler::html
