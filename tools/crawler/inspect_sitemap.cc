// `crawler inspect sitemap FILE`: parses a sitemap the way the crawler does (lib/sitemap) and
// prints its entries, streaming, one per line. The output format is a contract (see the footer).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "lib/sitemap/sitemap_entry.h"
#include "lib/sitemap/sitemap_parser.h"
#include "lib/sitemap/w3c_datetime.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

constexpr size_t kReadChunkBytes = 64 * 1024;

constexpr char kFooter[] = R"(Output (stdout), one line per entry, in document order:
  <loc>                 when the entry has no usable <lastmod>
  <loc><TAB><lastmod>   lastmod in RFC 3339, UTC, e.g. 2024-01-31T00:00:00Z
                        (fractional seconds only when present)
For a sitemap index the entries are the child sitemaps' URLs. Control characters in a loc are
printed percent-encoded (%0A, %09, ...) so that every entry stays on one line.

FILE may be gzip-compressed (detected by content) and may be an XML urlset, an XML
sitemapindex or a text sitemap (one URL per line). "-" reads standard input.

Stderr: a summary such as "urlset: 3 URLs, 1 skipped" (unless --quiet); on a parse error, the
entries read before it are printed and then "error: <message>".

Exit status: 0 parsed, 1 parse error or a sitemaps.org limit exceeded (50,000 entries,
52,428,800 bytes uncompressed), 2 usage error or unreadable FILE.)";

// Keeps the one-entry-per-line contract whatever bytes the document put in a loc.
std::string PrintableLoc(std::string_view loc) {
  std::string out;
  out.reserve(loc.size());
  for (const char c : loc) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      out += absl::StrFormat("%%%02X", byte);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string Summary(const sitemap::SitemapParser& parser) {
  const sitemap::SitemapStats& stats = parser.stats();
  const bool index = parser.kind() == sitemap::SitemapKind::kSitemapIndex;
  std::string summary =
      absl::StrFormat("%s: %d %s%s", std::string(sitemap::SitemapKindName(parser.kind())),
                      stats.entries, index ? "sitemap" : "URL", stats.entries == 1 ? "" : "s");
  if (stats.gzip) summary += " (gzip)";
  if (stats.skipped_entries > 0)
    absl::StrAppendFormat(&summary, ", %d skipped", stats.skipped_entries);
  if (stats.invalid_fields > 0) {
    absl::StrAppendFormat(&summary, ", %d invalid fields ignored", stats.invalid_fields);
  }
  return summary;
}

struct FileCloser {
  void operator()(std::FILE* file) const {
    if (file != stdin) std::fclose(file);
  }
};

int Run(const std::string& path, bool quiet) {
  std::unique_ptr<std::FILE, FileCloser> file(path == "-" ? stdin : std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    std::cerr << "error: cannot open " << path << ": " << std::strerror(errno) << "\n";
    return kExitUsage;
  }

  sitemap::SitemapParser parser({}, [](sitemap::SitemapEntry entry) {
    std::cout << PrintableLoc(entry.loc);
    if (entry.lastmod.has_value()) std::cout << '\t' << sitemap::FormatRfc3339Utc(*entry.lastmod);
    std::cout << '\n';
  });

  std::string buffer(kReadChunkBytes, '\0');
  absl::Status status;
  while (status.ok()) {
    const size_t read = std::fread(buffer.data(), 1, buffer.size(), file.get());
    if (read > 0) status = parser.Feed(std::string_view(buffer.data(), read));
    if (read < buffer.size()) {
      if (std::ferror(file.get())) {
        std::cout.flush();
        std::cerr << "error: cannot read " << path << ": " << std::strerror(errno) << "\n";
        return kExitUsage;
      }
      break;  // end of file
    }
  }
  if (status.ok()) status = parser.Finish();

  std::cout.flush();
  if (!quiet) std::cerr << Summary(parser) << "\n";
  if (!status.ok()) {
    std::cerr << "error: " << status.message() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void AddInspectSitemapCommand(CLI::App& inspect, int* exit_code) {
  CLI::App* command = inspect.add_subcommand(
      "sitemap", "Print the URLs (and lastmod) of a sitemap, sitemap index or text sitemap");
  command->footer(kFooter);
  auto path = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  command->add_option("FILE", *path, "Sitemap file (plain or gzip), or - for standard input")
      ->required();
  command->add_flag("-q,--quiet", *quiet, "Do not print the summary line on stderr");
  command->callback([exit_code, path, quiet] { *exit_code = Run(*path, *quiet); });
}

}  // namespace crawler::cli
