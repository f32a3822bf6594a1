// ExportSite: writes a SiteModel's whole web as static files, for serving the same pages with
// another server (nginx) or comparing mirrors (wget2 --recursive).
//
// Layout: DIR/<host>/<path> for every page id (all classes, sitemap-only included), plus
// DIR/<host>/robots.txt and DIR/<host>/sitemap.xml (and DIR/<host>/sitemap-N.xml, the parts of
// a sitemap index). A path ending in '/' is stored as
// <path>index.html ("/" -> DIR/<host>/index.html); a path with a query keeps it in the file name
// ("/d1/view?id=5&lang=en" -> DIR/<host>/d1/view?id=5&lang=en). docs/websim.md shows an nginx
// configuration serving this tree. Pages are rendered at elapsed time zero. Scripted hosts also
// get DIR/<host>/_app.js, DIR/<host>/_links/<id>.json of every page id, and, with hostile pages,
// DIR/<host>/_hostile/* (docs/websim.md, "Scripted sites").
//
// Thread-compatible; writes only below `dir`.
#ifndef CRAWLER_TOOLS_WEBSIM_SITE_EXPORT_H_
#define CRAWLER_TOOLS_WEBSIM_SITE_EXPORT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {

// Creates `dir` if needed; the errno-mapped status of the first failing file operation.
absl::Status ExportSite(const SiteModel& model, const std::string& dir);

// The file (relative to DIR/<host>/) a page path is exported to.
std::string ExportFileName(absl::string_view path);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SITE_EXPORT_H_
