// SiteModel's layout (site_model.h): hosts, page classes, paths, links and seeds, and when the
// pages change. Rendering is site_render.cc, responses site_http.cc, scripted sites
// site_scripted.cc.
#include "tools/websim/site_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/websim/seeded_random.h"
#include "tools/websim/site_model_internal.h"

namespace crawler::websim {
namespace {

// Each page links its children 4p+1 .. 4p+4 in this tree over page ids, which makes every
// public page reachable from the root at depth log4(pages). Only leaves may be private or
// nofollow-only, so no public page hides behind one.
constexpr int64_t kTreeFanout = 4;
constexpr int kNumDirs = 4;
constexpr int kNumSubdirs = 3;
// A "next" link from a /dK/view?id=N page goes to the next view page of the same directory
// within this many ids; the bound keeps rendering O(1) per page.
constexpr int kNextScanLimit = 256;

constexpr std::array<absl::string_view, 64> kWords = {
    "lorem",    "ipsum",   "dolor",     "sit",       "amet",      "consectetur", "adipiscing",
    "elit",     "sed",     "do",        "eiusmod",   "tempor",    "incididunt",  "ut",
    "labore",   "et",      "dolore",    "magna",     "aliqua",    "enim",        "ad",
    "minim",    "veniam",  "quis",      "nostrud",   "exercitation", "ullamco", "laboris",
    "nisi",     "aliquip", "ex",        "ea",        "commodo",   "consequat",   "duis",
    "aute",     "irure",   "in",        "reprehenderit", "voluptate", "velit",   "esse",
    "cillum",   "fugiat",  "nulla",     "pariatur",  "excepteur", "sint",        "occaecat",
    "cupidatat", "non",    "proident",  "sunt",      "culpa",     "qui",         "officia",
    "deserunt", "mollit",  "anim",      "id",        "est",       "laborum",     "crawler",
    "web"};

std::vector<std::string> MakeSentences(uint64_t seed) {
  std::vector<std::string> sentences;
  sentences.reserve(kNumSentences);
  Rng rng(Hash(seed, kSaltVocabulary, 0));
  for (int i = 0; i < kNumSentences; ++i) {
    std::string s;
    const int words = 6 + static_cast<int>(rng.Below(10));
    for (int w = 0; w < words; ++w) {
      absl::string_view word = kWords[rng.Below(kWords.size())];
      if (w == 0) {
        s.push_back(absl::ascii_toupper(word[0]));
        absl::StrAppend(&s, word.substr(1));
      } else {
        s.push_back(' ');
        absl::StrAppend(&s, word);
      }
    }
    s.append(". ");
    sentences.push_back(std::move(s));
  }
  return sentences;
}

// Directory of a path (up to and including its last '/', query ignored): "/d1/" for both
// "/d1/p5.html" and "/d1/view?id=5&lang=en".
absl::string_view DirOf(absl::string_view path) {
  absl::string_view no_query = path.substr(0, path.find('?'));
  return path.substr(0, no_query.rfind('/') + 1);
}

std::vector<absl::string_view> DirSegments(absl::string_view dir) {
  std::vector<absl::string_view> segments;
  size_t start = 1;  // skip the leading '/'
  while (start < dir.size()) {
    size_t slash = dir.find('/', start);
    segments.push_back(dir.substr(start, slash - start));
    start = slash + 1;
  }
  return segments;
}

// The shortest relative reference (RFC 3986 §4.2 relative-path) from a page at `from` to
// `to`; "./" when the target is the base directory itself. No segment of our paths contains
// ':', so the first segment can never be mistaken for a scheme.
std::string RelativeRef(absl::string_view from, absl::string_view to) {
  std::vector<absl::string_view> from_dir = DirSegments(DirOf(from));
  absl::string_view to_dir_view = DirOf(to);
  std::vector<absl::string_view> to_dir = DirSegments(to_dir_view);
  absl::string_view to_rest = to.substr(to_dir_view.size());
  size_t common = 0;
  while (common < from_dir.size() && common < to_dir.size() &&
         from_dir[common] == to_dir[common]) {
    ++common;
  }
  std::string ref;
  for (size_t i = common; i < from_dir.size(); ++i) ref.append("../");
  for (size_t i = common; i < to_dir.size(); ++i) absl::StrAppend(&ref, to_dir[i], "/");
  absl::StrAppend(&ref, to_rest);
  if (ref.empty()) ref = "./";
  return ref;
}

std::optional<int> ParseId(absl::string_view digits) {
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  int id = 0;
  if (!absl::SimpleAtoi(digits, &id)) return std::nullopt;
  return id;
}

// The page id a target names, if it has the shape of one of our paths; FindPage then checks
// that the page really lives there.
std::optional<int> IdFromTarget(absl::string_view target) {
  if (target == "/") return 0;
  if (size_t view = target.find("/view?id="); view != absl::string_view::npos) {
    absl::string_view rest = target.substr(view + 9);
    return ParseId(rest.substr(0, rest.find('&')));
  }
  if (absl::EndsWith(target, ".html")) {
    absl::string_view last = target.substr(target.rfind('/') + 1);
    if (!absl::StartsWith(last, "p")) return std::nullopt;
    return ParseId(last.substr(1, last.size() - 1 - 5));
  }
  if (target.size() > 1 && target.back() == '/') {
    absl::string_view dir = target.substr(0, target.size() - 1);
    absl::string_view last = dir.substr(dir.rfind('/') + 1);
    if (!absl::StartsWith(last, "t")) return std::nullopt;
    return ParseId(last.substr(1));
  }
  return std::nullopt;
}

}  // namespace

absl::string_view LinkFormName(LinkForm form) {
  switch (form) {
    case LinkForm::kAbsolutePath: return "absolute-path";
    case LinkForm::kPathRelative: return "path-relative";
    case LinkForm::kDotRelative: return "dot-relative";
    case LinkForm::kParentRelative: return "parent-relative";
    case LinkForm::kQueryOnly: return "query-only";
    case LinkForm::kDotSegments: return "dot-segments";
    case LinkForm::kSchemeRelative: return "scheme-relative";
    case LinkForm::kAbsoluteUrl: return "absolute-url";
    case LinkForm::kAbsoluteUrlNonCanonical: return "absolute-url-non-canonical";
  }
  return "unknown";
}

struct SiteModel::Layout {
  enum Kind { kRoot, kTop, kDir, kSub, kView, kIndex, kPrivate, kPrivateDir, kPrivateOpen };
  Kind kind = kRoot;
  int dir = 0;
  int sub = 0;
};

absl::StatusOr<SiteModel> SiteModel::Create(WebsimOptions options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  std::shared_ptr<const FocusSites> focus;
  if (!options.focus_sites.empty()) {
    absl::StatusOr<FocusSites> sites =
        FocusSites::Create(options.focus_sites, options.focus_duplicates, options.seed);
    if (!sites.ok()) return sites.status();
    focus = std::make_shared<const FocusSites>(*std::move(sites));
  }
  return SiteModel(std::move(options), std::move(focus));
}

SiteModel::SiteModel(WebsimOptions options, std::shared_ptr<const FocusSites> focus)
    : options_(std::move(options)),
      sentences_(MakeSentences(options_.seed)),
      focus_(std::move(focus)) {
  if (options_.change_rates.kind != ChangeRates::Kind::kNone) {
    changes_ = std::make_shared<const ChangeProcess>(options_.seed, options_.change_rates);
  }
  // The class fractions are of all pages but only leaves can take a class, so scale them up to
  // per-leaf probabilities (and back down if they would exceed 1 on tiny trees).
  const int64_t pages = options_.pages_per_host;
  const int64_t internal = pages >= 2 ? (pages - 2) / kTreeFanout + 1 : 1;
  const int64_t leaves = pages - internal;
  if (leaves > 0) {
    const double scale = static_cast<double>(pages) / static_cast<double>(leaves);
    p_private_ = options_.private_fraction * scale;
    p_private_open_ = options_.private_open_fraction * scale;
    p_nofollow_only_ = options_.nofollow_only_fraction * scale;
    const double sum = p_private_ + p_private_open_ + p_nofollow_only_;
    if (sum > 1.0) {
      p_private_ /= sum;
      p_private_open_ /= sum;
      p_nofollow_only_ /= sum;
    }
  }
  if (options_.equal_host_sizes && leaves > 0) {
    // Every host gets the expected number of leaves of each class, exactly; which leaves differs
    // per host (ClassOf rotates one seeded order of the leaves by a per-host offset).
    std::vector<int32_t> leaf_ids;
    for (int32_t page = 0; page < options_.pages_per_host; ++page) {
      if (IsTreeLeaf(page)) leaf_ids.push_back(page);
    }
    std::sort(leaf_ids.begin(), leaf_ids.end(), [&](int32_t a, int32_t b) {
      const uint64_t ha = Hash(options_.seed, kSaltEqualClass, 0, a);
      const uint64_t hb = Hash(options_.seed, kSaltEqualClass, 0, b);
      return ha != hb ? ha < hb : a < b;
    });
    auto rank = std::make_shared<std::vector<int32_t>>(options_.pages_per_host, -1);
    for (size_t i = 0; i < leaf_ids.size(); ++i) (*rank)[leaf_ids[i]] = static_cast<int32_t>(i);
    leaf_rank_ = std::move(rank);
    num_leaves_ = leaves;
    int64_t left = leaves;
    const auto quota = [&](double p) {
      const int64_t q = std::min<int64_t>(left, std::llround(p * static_cast<double>(leaves)));
      left -= q;
      return q;
    };
    quota_private_ = quota(p_private_);
    quota_private_open_ = quota(p_private_open_);
    quota_nofollow_only_ = quota(p_nofollow_only_);
  }
}

int SiteModel::PagesOf(int host) const {
  return focus_ != nullptr ? focus_->PagesOf(host) : options_.pages_per_host;
}

std::vector<ExternalLink> SiteModel::ExternalLinksOf(PageRef page) const {
  if (focus_ == nullptr || page.page >= focus_->PagesOf(page.host)) return {};
  return focus_->LinksOf(page.host, page.page, HostName(page.host));
}

std::string SiteModel::HostName(int host) const {
  return absl::StrCat("h", host, options_.host_suffix);
}

std::optional<int> SiteModel::FindHost(absl::string_view host_name) const {
  if (!absl::StartsWith(host_name, "h") || !absl::EndsWith(host_name, options_.host_suffix)) {
    return std::nullopt;
  }
  absl::string_view digits =
      host_name.substr(1, host_name.size() - 1 - options_.host_suffix.size());
  std::optional<int> host = ParseId(digits);
  // Rejects "h007": only the exact spelling HostName produces is ours.
  if (!host || *host >= options_.num_hosts || absl::StrCat(*host) != digits) {
    return std::nullopt;
  }
  return host;
}

bool SiteModel::IsTreeLeaf(int page) const {
  return page != 0 && int64_t{page} * kTreeFanout + 1 >= options_.pages_per_host;
}

PageClass SiteModel::ClassOf(PageRef page) const {
  if (page.page >= options_.pages_per_host) return PageClass::kSitemapOnly;
  if (!IsTreeLeaf(page.page)) return PageClass::kPublic;
  if (leaf_rank_ != nullptr) {  // equal_host_sizes: fixed quotas, rotated per host
    const int64_t offset = static_cast<int64_t>(Hash(options_.seed, kSaltEqualClass, 1, page.host) %
                                                static_cast<uint64_t>(num_leaves_));
    int64_t position = ((*leaf_rank_)[page.page] + offset) % num_leaves_;
    if (position < quota_private_) return PageClass::kPrivate;
    position -= quota_private_;
    if (position < quota_private_open_) return PageClass::kPrivateOpen;
    position -= quota_private_open_;
    if (position < quota_nofollow_only_) return PageClass::kNofollowOnly;
    return PageClass::kPublic;
  }
  double u = UnitInterval(Hash(options_.seed, kSaltClass, page.host, page.page));
  if (u < p_private_) return PageClass::kPrivate;
  u -= p_private_;
  if (u < p_private_open_) return PageClass::kPrivateOpen;
  u -= p_private_open_;
  if (u < p_nofollow_only_) return PageClass::kNofollowOnly;
  return PageClass::kPublic;
}

SiteModel::Layout SiteModel::LayoutOf(PageRef page) const {
  Layout layout;
  if (page.page == 0) return layout;
  const uint64_t h = Hash(options_.seed, kSaltLayout, page.host, page.page);
  layout.dir = static_cast<int>((h >> 8) % kNumDirs);
  layout.sub = static_cast<int>((h >> 16) % kNumSubdirs);
  switch (ClassOf(page)) {
    case PageClass::kPrivate:
      layout.kind = ((h >> 24) & 1) ? Layout::kPrivateDir : Layout::kPrivate;
      return layout;
    case PageClass::kPrivateOpen:
      layout.kind = Layout::kPrivateOpen;
      return layout;
    default:
      break;
  }
  const uint64_t r = h % 100;
  layout.kind = r < 15   ? Layout::kTop
                : r < 50 ? Layout::kDir
                : r < 75 ? Layout::kSub
                : r < 90 ? Layout::kView
                         : Layout::kIndex;
  return layout;
}

std::string SiteModel::PathOf(PageRef page) const {
  const Layout layout = LayoutOf(page);
  const int n = page.page;
  switch (layout.kind) {
    case Layout::kRoot: return "/";
    case Layout::kTop: return absl::StrCat("/p", n, ".html");
    case Layout::kDir: return absl::StrCat("/d", layout.dir, "/p", n, ".html");
    case Layout::kSub: return absl::StrCat("/d", layout.dir, "/s", layout.sub, "/p", n, ".html");
    case Layout::kView: return absl::StrCat("/d", layout.dir, "/view?id=", n, "&lang=en");
    case Layout::kIndex: return absl::StrCat("/d", layout.dir, "/t", n, "/");
    case Layout::kPrivate: return absl::StrCat("/private/p", n, ".html");
    case Layout::kPrivateDir: return absl::StrCat("/private/d", layout.dir, "/p", n, ".html");
    case Layout::kPrivateOpen: return absl::StrCat("/private/open/p", n, ".html");
  }
  return "/";
}

std::optional<PageRef> SiteModel::FindPage(int host, absl::string_view target) const {
  if (host < 0 || host >= options_.num_hosts) return std::nullopt;
  std::optional<int> id = IdFromTarget(target);
  if (!id || *id >= num_page_ids()) return std::nullopt;
  if (focus_ != nullptr && *id >= focus_->PagesOf(host)) return std::nullopt;
  PageRef page{host, *id};
  if (PathOf(page) != target) return std::nullopt;
  return page;
}

std::string SiteModel::UrlOf(PageRef page) const {
  return absl::StrCat("http://", HostName(page.host), PathOf(page));
}

bool SiteModel::IsAllowed(absl::string_view path) const {
  // Mirrors RenderRobotsTxt's group for "*": the longer Allow wins over Disallow: /private/.
  return !absl::StartsWith(path, "/private/") || absl::StartsWith(path, "/private/open/");
}

std::string SiteModel::HrefFor(PageRef from, const std::string& from_path, PageRef to,
                               LinkForm form) const {
  const std::string to_path = PathOf(to);
  switch (form) {
    case LinkForm::kAbsolutePath:
      return to_path;
    case LinkForm::kPathRelative:
    case LinkForm::kParentRelative:
      return RelativeRef(from_path, to_path);
    case LinkForm::kDotRelative: {
      std::string ref = RelativeRef(from_path, to_path);
      if (absl::StartsWith(ref, "./") || absl::StartsWith(ref, "../")) return ref;
      return absl::StrCat("./", ref);
    }
    case LinkForm::kQueryOnly:
      return to_path.substr(to_path.find('?'));
    case LinkForm::kDotSegments: {
      // "/d<x>/../<dir>./<last>": one segment up and one "." that remove_dot_segments drops.
      absl::string_view dir = DirOf(to_path);
      const int detour = static_cast<int>(Hash(options_.seed, kSaltLinks, from.page, to.page) %
                                          kNumDirs);
      return absl::StrCat("/d", detour, "/..", dir, "./",
                          absl::string_view(to_path).substr(dir.size()));
    }
    case LinkForm::kSchemeRelative:
      return absl::StrCat("//", HostName(to.host), to_path);
    case LinkForm::kAbsoluteUrl:
      return absl::StrCat("http://", HostName(to.host), to_path);
    case LinkForm::kAbsoluteUrlNonCanonical:
      return absl::StrCat("HTTP://", absl::AsciiStrToUpper(HostName(to.host)), ":80", to_path);
  }
  return to_path;
}

std::vector<OutLink> SiteModel::LinksOf(PageRef page) const {
  std::vector<OutLink> links;
  const std::string from_path = PathOf(page);
  const int pages = PagesOf(page.host);
  const int hosts = options_.num_hosts;
  // Focused sites link only down their tree, so breadth-first order is page-id order.
  const bool focused = focus_ != nullptr;
  Rng rng(Hash(options_.seed, kSaltLinks, page.host, page.page));

  auto add = [&](PageRef to, bool nofollow, LinkForm form) {
    OutLink link;
    link.target = to;
    link.nofollow = nofollow || ClassOf(to) == PageClass::kNofollowOnly;
    link.href = HrefFor(page, from_path, to, form);
    if (form == LinkForm::kPathRelative || form == LinkForm::kDotRelative) {
      // The shortest relative form of some targets climbs or starts with "./" by itself.
      if (absl::StartsWith(link.href, "../")) {
        form = LinkForm::kParentRelative;
      } else if (absl::StartsWith(link.href, "./")) {
        form = LinkForm::kDotRelative;
      }
    }
    link.form = form;
    // Fragments and surrounding spaces must not change which page a link names.
    const uint64_t decoration = rng.Next();
    if (decoration % 100 < 15) absl::StrAppend(&link.href, "#s", (decoration >> 8) % 10);
    if ((decoration >> 16) % 100 < 4) link.href = absl::StrCat(" ", link.href, " ");
    links.push_back(std::move(link));
  };
  constexpr std::array<LinkForm, 7> kIntraForms = {
      LinkForm::kAbsolutePath,   LinkForm::kPathRelative, LinkForm::kDotRelative,
      LinkForm::kDotSegments,    LinkForm::kSchemeRelative, LinkForm::kAbsoluteUrl,
      LinkForm::kAbsoluteUrlNonCanonical};
  constexpr std::array<LinkForm, 3> kCrossForms = {
      LinkForm::kSchemeRelative, LinkForm::kAbsoluteUrl, LinkForm::kAbsoluteUrlNonCanonical};

  // The roots form a ring so that every host is reachable from any seed.
  if (page.page == 0 && hosts > 1 && !focused) {
    add(PageRef{(page.host + 1) % hosts, 0}, false, kCrossForms[rng.Below(kCrossForms.size())]);
  }
  if (options_.popular_links > 0) {
    if (page.page != 0) add(PageRef{page.host, 0}, false, LinkForm::kAbsoluteUrl);
    for (int h = 0; h < std::min(options_.popular_links, hosts); ++h) {
      if (h != page.host) add(PageRef{h, 0}, false, LinkForm::kAbsoluteUrl);
    }
  }
  if (page.page < pages) {
    for (int64_t child = int64_t{page.page} * kTreeFanout + 1;
         child <= int64_t{page.page} * kTreeFanout + kTreeFanout && child < pages; ++child) {
      add(PageRef{page.host, static_cast<int>(child)}, false,
          kIntraForms[rng.Below(kIntraForms.size())]);
    }
  }
  // Pagination between the view pages of one directory: the only query-only ("?id=...") hrefs.
  const Layout layout = LayoutOf(page);
  if (layout.kind == Layout::kView && !focused) {
    const int end = std::min(pages, page.page + 1 + kNextScanLimit);
    for (int next = page.page + 1; next < end; ++next) {
      PageRef candidate{page.host, next};
      if (ClassOf(candidate) != PageClass::kPublic) continue;
      Layout l = LayoutOf(candidate);
      if (l.kind == Layout::kView && l.dir == layout.dir) {
        add(candidate, false, LinkForm::kQueryOnly);
        break;
      }
    }
  }
  for (int i = 0; i < options_.links_per_page; ++i) {
    const bool cross = hosts > 1 && rng.Uniform() < options_.cross_host_fraction;
    const bool nofollow = rng.Uniform() < options_.nofollow_fraction;
    PageRef to{page.host, static_cast<int>(rng.Below(pages))};
    if (cross) to.host = static_cast<int>((page.host + 1 + rng.Below(hosts - 1)) % hosts);
    const LinkForm form = cross ? kCrossForms[rng.Below(kCrossForms.size())]
                                : kIntraForms[rng.Below(kIntraForms.size())];
    add(to, nofollow, form);
  }
  // Drawn apart from the stream above, so that the links of a scripted host are the same links
  // as without scripts, only delivered otherwise.
  if (IsScripted(page.host)) {
    for (size_t i = 0; i < links.size(); ++i) {
      links[i].delivery = DeliveryOf(page, i, links[i]);
    }
  }
  return links;
}

std::vector<PageRef> SiteModel::Seeds() const {
  const int n = options_.num_seed_hosts == 0 ? options_.num_hosts : options_.num_seed_hosts;
  std::vector<PageRef> seeds;
  seeds.reserve(n);
  for (int host = 0; host < n; ++host) seeds.push_back(PageRef{host, 0});
  return seeds;
}

absl::Duration SiteModel::LatencyOf(int host) const {
  const double u = UnitInterval(Hash(options_.seed, kSaltLatency, host));
  const absl::Duration span = options_.latency_max - options_.latency_min;
  return options_.latency_min + absl::Microseconds(std::floor(u * absl::ToDoubleMicroseconds(span)));
}

double SiteModel::SimulatedDays(absl::Duration elapsed) const {
  return absl::ToDoubleSeconds(elapsed) * options_.time_scale;
}

double SiteModel::ChangeRateOf(PageRef page) const {
  return changes_ == nullptr ? 0.0 : changes_->RatePerDay(page.host, page.page);
}

ChangeProcess::Version SiteModel::VersionOf(PageRef page, absl::Duration elapsed) const {
  if (changes_ == nullptr) return ChangeProcess::Version{};
  return changes_->At(page.host, page.page, SimulatedDays(elapsed));
}

std::vector<double> SiteModel::ChangeTimesOf(PageRef page, absl::Duration elapsed) const {
  if (changes_ == nullptr) return {};
  return changes_->EventsUpTo(page.host, page.page, SimulatedDays(elapsed));
}

absl::Time SiteModel::WallTimeOf(double day) const {
  return options_.change_epoch + absl::Seconds(static_cast<int64_t>(std::floor(day * 86'400.0)));
}

}  // namespace crawler::websim
