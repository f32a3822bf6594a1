#include "services/fetcher/link_ledger.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/url/canonical_url.h"

namespace crawler::fetcher {
namespace {

// Text fields (anchor texts, unresolved values) may hold tabs and line breaks.
void AppendEscaped(std::string_view text, std::string& out) {
  for (const char c : text) {
    switch (c) {
      case '\\': out.append("\\\\"); break;
      case '\t': out.append("\\t"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      default: out.push_back(c);
    }
  }
}

std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out.push_back(text[i]);
      continue;
    }
    const char c = text[++i];
    out.push_back(c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c);
  }
  return out;
}

std::string CanonicalOrHref(const url::Url& u) {
  absl::StatusOr<url::CanonicalUrl> canonical = url::Canonicalize(u, url::CanonicalizeOptions{});
  return canonical.ok() ? canonical->str() : std::string(u.href());
}

// Links a reader follows by choice: <a>, <area>, and the navigations of click handlers and
// javascript: hrefs (kScript), which sites use in their place.
bool IsHyperlink(html::LinkKind kind) {
  return kind == html::LinkKind::kA || kind == html::LinkKind::kArea ||
         kind == html::LinkKind::kScript;
}

// Reads the file's pages; `complete_bytes` is the length of the prefix of whole pages.
absl::Status ReadPages(const std::string& path,
                       const std::function<void(const LedgerPage&)>& visit,
                       uint64_t* complete_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string line;
  uint64_t offset = 0;
  uint64_t line_number = 0;
  LedgerPage page;
  size_t links_left = 0, unresolved_left = 0;
  bool in_page = false;
  const auto finish = [&] {
    if (in_page && links_left == 0 && unresolved_left == 0) {
      visit(page);
      in_page = false;
      if (complete_bytes != nullptr) *complete_bytes = offset;
    }
  };
  if (complete_bytes != nullptr) *complete_bytes = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (in.eof()) break;  // no newline: a partial last line
    offset += line.size() + 1;
    const std::vector<absl::string_view> f = absl::StrSplit(line, '\t');
    const auto bad = [&] {
      return absl::DataLossError(absl::StrCat(path, ":", line_number, ": malformed line"));
    };
    if (f[0] == "page" && f.size() == 6) {
      if (in_page) return bad();
      page = LedgerPage{.url = std::string(f[1])};
      if (!absl::SimpleAtoi(f[2], &page.depth) ||
          !absl::SimpleAtoi(f[3], &page.new_external_links) ||
          !absl::SimpleAtoi(f[4], &links_left) || !absl::SimpleAtoi(f[5], &unresolved_left)) {
        return bad();
      }
      page.links.reserve(links_left);
      in_page = true;
    } else if (f[0] == "link" && f.size() == 4 && in_page && links_left > 0) {
      page.links.push_back(
          LedgerPage::Link{std::string(f[1]), f[2] == "1", Unescape(std::string_view(f[3].data(), f[3].size()))});
      --links_left;
    } else if (f[0] == "unresolved" && f.size() == 3 && in_page && links_left == 0 &&
               unresolved_left > 0) {
      page.unresolved.push_back(LedgerPage::Unresolved{std::string(f[1]), Unescape(std::string_view(f[2].data(), f[2].size()))});
      --unresolved_left;
    } else {
      return bad();
    }
    finish();
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadLinkLedger(const std::string& path,
                            const std::function<void(const LedgerPage&)>& visit) {
  return ReadPages(path, visit, nullptr);
}

absl::StatusOr<std::unique_ptr<LinkLedger>> LinkLedger::Open(const std::string& path,
                                                             const url::PublicSuffixList* psl,
                                                             bool by_host, MarkSeen mark_seen) {
  if (!by_host && psl == nullptr) {
    return absl::InvalidArgumentError("a link ledger by registrable domain needs a PSL");
  }
  absl::flat_hash_set<std::string> seen;
  uint64_t complete = 0;
  {
    std::FILE* create = std::fopen(path.c_str(), "ab");
    if (create == nullptr) {
      return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    std::fclose(create);
  }
  absl::Status read = ReadPages(
      path,
      [&](const LedgerPage& page) {
        if (mark_seen) return;  // the shared set knows
        for (const LedgerPage::Link& link : page.links) {
          if (link.external) seen.insert(link.target);
        }
      },
      &complete);
  if (!read.ok()) return read;
  // A partial page left by a crash would corrupt the next one appended after it.
  if (::truncate(path.c_str(), static_cast<off_t>(complete)) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot truncate ", path, ": ", std::strerror(errno)));
  }
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<LinkLedger> ledger(new LinkLedger(file, psl, by_host, std::move(mark_seen)));
  ledger->seen_external_ = std::move(seen);
  return ledger;
}

LinkLedger::LinkLedger(std::FILE* file, const url::PublicSuffixList* psl, bool by_host,
                       MarkSeen mark_seen)
    : psl_(psl), by_host_(by_host), mark_seen_(std::move(mark_seen)), file_(file) {}

LinkLedger::~LinkLedger() {
  absl::MutexLock lock(&mu_);
  std::fclose(file_);
}

bool LinkLedger::IsExternal(const url::Url& page, const url::Url& target) const {
  if (by_host_) return page.host() != target.host();
  return psl_->RegistrableDomain(page.host()) != psl_->RegistrableDomain(target.host());
}

uint32_t LinkLedger::RecordPage(const PageLinks& page) {
  struct Classified {
    std::string target;
    bool external;
    const html::Link* link;
  };
  std::vector<Classified> links;
  links.reserve(page.links.size());
  for (const html::Link& link : page.links) {
    if (!IsHyperlink(link.kind)) continue;
    links.push_back(Classified{CanonicalOrHref(link.url), IsExternal(page.url, link.url), &link});
  }
  std::string record;
  absl::StrAppend(&record, "page\t", absl::string_view(page.canonical_url.data(), page.canonical_url.size()), "\t",
                  page.depth, "\t");
  std::string body;
  uint32_t fresh = 0;
  // The shared set is asked before the lock: it is a remote call, and pages of other workers
  // need not wait for it.
  std::optional<absl::StatusOr<std::vector<bool>>> shared;
  if (mark_seen_) {
    std::vector<std::string> external;
    for (const Classified& c : links) {
      if (c.external) external.push_back(c.target);
    }
    if (!external.empty()) {
      shared = mark_seen_(external);
      if (shared->ok() && (*shared)->size() != external.size()) {
        *shared = absl::InternalError("shared seen set: answer count differs");
      }
      if (shared->ok()) {
        for (const bool f : **shared) fresh += f ? 1 : 0;
      }
    }
  }
  absl::MutexLock lock(&mu_);
  if (shared.has_value()) {
    if (shared->ok()) {
      fresh_shared_ += fresh;
    } else {
      ++seen_set_failures_;
    }
  }
  for (const Classified& c : links) {
    if (c.external && !mark_seen_ && seen_external_.insert(c.target).second) ++fresh;
    absl::StrAppend(&body, "link\t", c.target, "\t", c.external ? "1" : "0", "\t");
    AppendEscaped(c.link->anchor_text, body);
    body.push_back('\n');
  }
  for (const html::UnresolvedRef& u : page.unresolved) {
    absl::StrAppend(&body, "unresolved\t", u.reason, "\t");
    AppendEscaped(u.value, body);
    body.push_back('\n');
  }
  absl::StrAppend(&record, fresh, "\t", links.size(), "\t", page.unresolved.size(), "\n", body);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size() ||
      std::fflush(file_) != 0) {
    ++write_failures_;
  }
  return fresh;
}

uint64_t LinkLedger::external_links_seen() const {
  absl::MutexLock lock(&mu_);
  return mark_seen_ ? fresh_shared_ : seen_external_.size();
}

uint64_t LinkLedger::seen_set_failures() const {
  absl::MutexLock lock(&mu_);
  return seen_set_failures_;
}

uint64_t LinkLedger::write_failures() const {
  absl::MutexLock lock(&mu_);
  return write_failures_;
}

}  // namespace crawler::fetcher
