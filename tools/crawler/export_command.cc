// `crawler export links|domains|unresolved|rewards`: what a crawl's link ledger
// (<data_dir>/links.tsv, written with --record-links or --focus; services/fetcher/link_ledger.h)
// holds, for webometrics (docs/focused.md, "Exports"):
//
//   crawler export links --data-dir D [--external] [--format csv|jsonl]
//     every hyperlink (<a>, <area>, script navigations) of every recorded page, one row per
//     occurrence:
//     source_url, target_url, anchor_text, source_site, target_domain, depth, external
//   crawler export domains --data-dir D [--format csv|jsonl]
//     the registrable domains external links point to, with the number of distinct sites of the
//     collection (registrable domains of the linking pages) that link to each, the distinct
//     target URLs and the occurrences; most linking sites first
//   crawler export unresolved --data-dir D [--format csv|jsonl]
//     the hrefs that are no followable URL (javascript:, mailto:, data:, other schemes, invalid),
//     one row per occurrence (the first 100 per page): source_url, reason, value, source_site,
//     depth
//   crawler export rewards --data-dir D
//     per host, the new external links of each of its pages in the order they were recorded:
//     the replay file of `banditsim --replay`
//
// A distributed crawl's links are in its fetchers' data dirs, one ledger per collection and
// fetcher (<data_dir>/links/<collection>-p<k>.tsv, services/fetcher/fetcher_node.h): give
// every fetcher's data dir (--data-dir is repeatable; copies of the directories will do) and the
// collection (--collection NAME); the ledgers are read as one, in the order given. Each link
// counts once fleet-wide, so the exports are the same as a standalone crawl's of the same pages.
// A host is crawled by one fetcher, so the rewards of a host stay in the order it recorded them.
//
// Sites and domains are registrable domains (Public Suffix List). CSV is RFC 4180 with a header
// line; JSONL one object per line. Counts go to stderr ("export: N rows; M pages, K unresolved
// hrefs (javascript J, mailto L, ...)"). Exit 0 on success, 2 for bad flags or a data dir
// without a link ledger, 1 if the ledger is damaged.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/json/json_string.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"
#include "services/fetcher/link_ledger.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct ExportFlags {
  std::vector<std::string> data_dirs;
  std::string collection;  // a distributed crawl's: read <data_dir>/links/<collection>-p*.tsv
  std::string format = "csv";
  bool external_only = false;
};

// A row: (column name, value, whether the value is a number in JSON).
using Row = std::vector<std::tuple<std::string, std::string, bool>>;

std::string CsvField(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

class RowWriter {
 public:
  explicit RowWriter(bool jsonl) : jsonl_(jsonl) {}
  void Write(const Row& row) {
    if (jsonl_) {
      std::string line = "{";
      for (size_t i = 0; i < row.size(); ++i) {
        const auto& [name, value, number] = row[i];
        absl::StrAppend(&line, i > 0 ? ", " : "", json::JsonString(name), ": ",
                        number ? value : json::JsonString(value));
      }
      std::cout << line << "}\n";
    } else {
      if (rows_ == 0) {
        std::vector<std::string> names;
        for (const auto& field : row) names.push_back(std::get<0>(field));
        std::cout << absl::StrJoin(names, ",") << "\n";
      }
      std::vector<std::string> values;
      for (const auto& field : row) values.push_back(CsvField(std::get<1>(field)));
      std::cout << absl::StrJoin(values, ",") << "\n";
    }
    ++rows_;
  }
  uint64_t rows() const { return rows_; }

 private:
  const bool jsonl_;
  uint64_t rows_ = 0;
};

std::string HostOf(const std::string& url_text) {
  absl::StatusOr<url::Url> parsed = url::Url::Parse(url_text);
  return parsed.ok() ? std::string(parsed->host()) : std::string();
}

// The ledgers to read, in order: <dir>/links.tsv of a standalone crawl, or a fetcher's
// <dir>/links/<collection>-p<k>.tsv. Empty (after a message) if a directory has none.
std::vector<std::string> LedgerPaths(const ExportFlags& flags) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& dir : flags.data_dirs) {
    if (flags.collection.empty()) {
      const std::string path = (fs::path(dir) / "links.tsv").string();
      if (!fs::exists(path)) {
        std::cerr << "export: " << path
                  << " does not exist: crawl with --record-links or --focus to record links"
                  << (fs::is_directory(fs::path(dir) / "links")
                          ? " (a fetcher's data dir: name the collection with --collection)"
                          : "")
                  << "\n";
        return {};
      }
      paths.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    std::error_code ec;
    const std::string prefix = flags.collection + "-p";
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(dir) / "links", ec)) {
      const std::string name = e.path().filename().string();
      // <collection>-p<k>.tsv exactly (not another collection's whose name goes on "-p...").
      if (!name.starts_with(prefix) || !name.ends_with(".tsv")) continue;
      const std::string k = name.substr(prefix.size(), name.size() - prefix.size() - 4);
      if (!k.empty() && std::all_of(k.begin(), k.end(), absl::ascii_isdigit)) {
        found.push_back(e.path().string());
      }
    }
    if (found.empty()) {
      std::cerr << "export: no links of collection " << flags.collection << " in " << dir
                << "/links (a fetcher's data dir, with record_links or focus on)\n";
      return {};
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  return paths;
}

int RunExport(const std::string& what, const ExportFlags& flags) {
  if (flags.format != "csv" && flags.format != "jsonl") {
    std::cerr << "export: --format must be csv or jsonl\n";
    return kExitUsage;
  }
  const std::vector<std::string> paths = LedgerPaths(flags);
  if (paths.empty()) return kExitUsage;
  absl::StatusOr<url::PublicSuffixList> psl = url::PublicSuffixList::LoadDefault();
  if (!psl.ok()) {
    std::cerr << "export: " << psl.status().message() << "\n";
    return kExitFailure;
  }
  absl::flat_hash_map<std::string, std::string> domain_cache;
  const auto domain_of_host = [&](const std::string& host) -> const std::string& {
    auto it = domain_cache.find(host);
    if (it == domain_cache.end()) it = domain_cache.emplace(host, psl->RegistrableDomain(host)).first;
    return it->second;
  };
  RowWriter writer(flags.format == "jsonl");
  uint64_t pages = 0;
  std::map<std::string, uint64_t> unresolved_by_reason;
  uint64_t unresolved = 0;
  struct DomainTally {
    std::set<std::string> sites;
    std::set<std::string> targets;
    uint64_t occurrences = 0;
  };
  std::map<std::string, DomainTally> domains;
  std::vector<std::string> host_order;
  std::map<std::string, std::vector<uint32_t>> rewards;

  const auto visit = [&](const fetcher::LedgerPage& page) {
    ++pages;
    const std::string source_host = HostOf(page.url);
    const std::string site = domain_of_host(source_host);
    const std::string depth = absl::StrCat(page.depth);
    for (const fetcher::LedgerPage::Unresolved& u : page.unresolved) {
      ++unresolved;
      ++unresolved_by_reason[u.reason];
      if (what == "unresolved") {
        writer.Write({{"source_url", page.url, false},
                      {"reason", u.reason, false},
                      {"value", u.value, false},
                      {"source_site", site, false},
                      {"depth", depth, true}});
      }
    }
    if (what == "rewards") {
      auto [it, added] = rewards.try_emplace(source_host);
      if (added) host_order.push_back(source_host);
      it->second.push_back(page.new_external_links);
    }
    for (const fetcher::LedgerPage::Link& link : page.links) {
      if (what == "links") {
        if (flags.external_only && !link.external) continue;
        writer.Write({{"source_url", page.url, false},
                      {"target_url", link.target, false},
                      {"anchor_text", link.anchor_text, false},
                      {"source_site", site, false},
                      {"target_domain", domain_of_host(HostOf(link.target)), false},
                      {"depth", depth, true},
                      {"external", link.external ? "true" : "false", true}});
      } else if (what == "domains" && link.external) {
        DomainTally& tally = domains[domain_of_host(HostOf(link.target))];
        tally.sites.insert(site);
        tally.targets.insert(link.target);
        ++tally.occurrences;
      }
    }
  };
  absl::Status read = absl::OkStatus();
  for (const std::string& path : paths) {
    read = fetcher::ReadLinkLedger(path, visit);
    if (!read.ok()) break;
  }
  if (what == "domains") {
    std::vector<std::pair<std::string, const DomainTally*>> sorted;
    for (const auto& [domain, tally] : domains) sorted.emplace_back(domain, &tally);
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second->sites.size() > b.second->sites.size();
    });
    for (const auto& [domain, tally] : sorted) {
      writer.Write({{"domain", domain, false},
                    {"sites", absl::StrCat(tally->sites.size()), true},
                    {"target_urls", absl::StrCat(tally->targets.size()), true},
                    {"links", absl::StrCat(tally->occurrences), true}});
    }
  }
  if (what == "rewards") {
    for (const std::string& host : host_order) {
      std::cout << host << "\t" << absl::StrJoin(rewards[host], ",") << "\n";
    }
  }
  std::vector<std::string> reasons;
  for (const auto& [reason, count] : unresolved_by_reason) {
    reasons.push_back(absl::StrCat(reason, " ", count));
  }
  std::cerr << "export: " << writer.rows() << " rows; " << pages << " pages, " << unresolved
            << " unresolved hrefs" << (reasons.empty() ? "" : " (") << absl::StrJoin(reasons, ", ")
            << (reasons.empty() ? "" : ")") << "\n";
  if (!read.ok()) {
    std::cerr << "export: " << read.message() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, int* exit_code) {
  CLI::App* exp = app.add_subcommand(
      "export", "Export a crawl's recorded links (--record-links, --focus): links, domains, "
                "unresolved hrefs, per-page rewards");
  exp->require_subcommand(1);
  for (const char* what : {"links", "domains", "unresolved", "rewards"}) {
    auto flags = std::make_shared<ExportFlags>();
    const std::string name = what;
    CLI::App* sub = exp->add_subcommand(
        name, name == "links"        ? "Every hyperlink of every recorded page"
              : name == "domains"    ? "External target domains and how many sites link to each"
              : name == "unresolved" ? "hrefs that are no followable URL (javascript:, mailto: ...)"
                                     : "New external links per page, per host (banditsim --replay)");
    sub->add_option("--data-dir", flags->data_dirs,
                    "The crawl's data directory; a distributed crawl's: every fetcher's "
                    "(repeatable, with --collection)")
        ->required();
    sub->add_option("--collection", flags->collection,
                    "A distributed crawl's collection: read the fetchers' "
                    "<data_dir>/links/<collection>-p<k>.tsv");
    if (name != "rewards") {
      sub->add_option("--format", flags->format, "csv or jsonl")->capture_default_str();
    }
    if (name == "links") {
      sub->add_flag("--external", flags->external_only, "Only external links");
    }
    sub->callback([flags, name, exit_code] { *exit_code = RunExport(name, *flags); });
  }
}

}  // namespace crawler::cli
