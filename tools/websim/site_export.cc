#include "tools/websim/site_export.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace crawler::websim {
namespace {

absl::Status WriteFile(const std::filesystem::path& path, absl::string_view content) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return absl::ErrnoToStatus(ec.value(), absl::StrCat("cannot create ", path.parent_path().string()));
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path.string()));
  const size_t written = std::fwrite(content.data(), 1, content.size(), f);
  const int close_result = std::fclose(f);
  if (written != content.size() || close_result != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path.string()));
  }
  return absl::OkStatus();
}

// A scripted host's router and link JSON, and its hostile pages with their resources (the
// stalling script is an ordinary file here: a static server does not stall).
absl::Status ExportScripted(const SiteModel& model, int host, const std::filesystem::path& dir) {
  if (!model.IsScripted(host)) return absl::OkStatus();
  if (absl::Status s = WriteFile(dir / ExportFileName(kAppScriptPath), model.RenderAppScript());
      !s.ok()) {
    return s;
  }
  for (int page = 0; page < model.num_page_ids(); ++page) {
    const PageRef ref{host, page};
    absl::Status s =
        WriteFile(dir / ExportFileName(SiteModel::LinksJsonPath(ref)), model.RenderLinksJson(ref));
    if (!s.ok()) return s;
  }
  if (!model.HasHostilePages(host)) return absl::OkStatus();
  for (absl::string_view path : {kStallScriptPath, kPopupPath}) {
    const SiteResponse r = model.Respond(model.HostName(host), path, absl::ZeroDuration());
    if (absl::Status s = WriteFile(dir / ExportFileName(path), r.body); !s.ok()) return s;
  }
  for (int kind = 0; kind < kNumHostileKinds; ++kind) {
    const HostileKind k = static_cast<HostileKind>(kind);
    if (absl::Status s = WriteFile(dir / ExportFileName(HostilePath(k)), model.RenderHostilePage(k));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string ExportFileName(absl::string_view path) {
  std::string name(path.substr(1));  // paths always start with '/'
  if (name.empty() || name.back() == '/') name.append("index.html");
  return name;
}

absl::Status ExportSite(const SiteModel& model, const std::string& dir) {
  const std::filesystem::path root(dir);
  for (int host = 0; host < model.num_hosts(); ++host) {
    const std::filesystem::path host_dir = root / model.HostName(host);
    if (absl::Status s = WriteFile(host_dir / "robots.txt", model.RenderRobotsTxt(host)); !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteFile(host_dir / "sitemap.xml", model.RenderSitemap(host)); !s.ok()) {
      return s;
    }
    // The parts of a sitemap that is an index (sitemap_max_urls).
    for (int part = 1; part <= model.SitemapParts(host); ++part) {
      absl::Status s = WriteFile(host_dir / absl::StrCat("sitemap-", part, ".xml"),
                                 *model.RenderSitemapPart(host, part));
      if (!s.ok()) return s;
    }
    for (int page = 0; page < model.num_page_ids(); ++page) {
      const PageRef ref{host, page};
      const std::string path = model.PathOf(ref);
      absl::Status s = WriteFile(host_dir / ExportFileName(path),
                                 model.RenderPage(ref, absl::ZeroDuration()));
      if (!s.ok()) return s;
    }
    if (absl::Status s = ExportScripted(model, host, host_dir); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace crawler::websim
