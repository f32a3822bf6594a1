// `crawler inspect url`: how the crawler parses, resolves and canonicalises one URL.
//
//   crawler inspect url [--base BASE] [--] INPUT      the resolved href, one line
//   crawler inspect url --canonical [--base BASE] [--] INPUT
//                                                     the canonical form (dedup / queue key)
//   crawler inspect url --details [--base BASE] [--] INPUT
//                                                     "name: value" lines: components, canonical
//                                                     form, host key, registrable domain
// Without --base, INPUT must be absolute. Use `--` before an INPUT that starts with '-'.
// Exit 0 on success; 1 with "invalid URL: <reason>" (or "invalid base URL: <reason>") on stderr
// when the URL is rejected; 2 for bad flags.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "lib/url/canonical_url.h"
#include "lib/url/host_key.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct InspectUrlArgs {
  std::string input;
  std::string base;
  bool canonical = false;
  bool details = false;
  bool keep_session_ids = false;
  bool keep_tracking = false;
  bool sort_query = false;
  std::vector<std::string> strip;
};

int RunInspectUrl(const InspectUrlArgs& args) {
  absl::StatusOr<url::Url> parsed;
  if (!args.base.empty()) {
    absl::StatusOr<url::Url> base = url::Url::Parse(args.base);
    if (!base.ok()) {
      std::cerr << "invalid base URL: " << base.status().message() << "\n";
      return kExitFailure;
    }
    parsed = url::Url::Parse(args.input, *base);
  } else {
    parsed = url::Url::Parse(args.input);
  }
  if (!parsed.ok()) {
    std::cerr << "invalid URL: " << parsed.status().message() << "\n";
    return kExitFailure;
  }
  const url::Url& u = *parsed;
  if (!args.canonical && !args.details) {
    std::cout << u.href() << "\n";
    return kExitOk;
  }

  url::CanonicalizeOptions options;
  options.strip_session_ids = !args.keep_session_ids;
  options.strip_tracking_params = !args.keep_tracking;
  options.sort_query_params = args.sort_query;
  options.extra_params_to_strip = args.strip;
  absl::StatusOr<url::CanonicalUrl> canonical = url::Canonicalize(u, options);
  if (!canonical.ok()) {
    std::cerr << "invalid URL: " << canonical.status().message() << "\n";
    return kExitFailure;
  }
  if (args.canonical) {
    std::cout << canonical->str() << "\n";
    return kExitOk;
  }

  absl::StatusOr<url::PublicSuffixList> psl = url::PublicSuffixList::LoadDefault();
  std::cout << "href: " << u.href() << "\n"
            << "scheme: " << u.scheme() << "\n"
            << "username: " << u.username() << "\n"
            << "password: " << u.password() << "\n"
            << "host: " << u.host() << "\n"
            << "port: " << u.port() << "\n"
            << "effective_port: " << u.effective_port() << "\n"
            << "path: " << u.path() << "\n"
            << "query: " << (u.has_query() ? "?" : "") << u.query() << "\n"
            << "fragment: " << (u.has_fragment() ? "#" : "") << u.fragment() << "\n"
            << "canonical: " << canonical->str() << "\n"
            << "host_key: " << url::HostKey::Of(u).str() << "\n"
            << "registrable_domain: "
            << (psl.ok() ? psl->RegistrableDomain(u.host()) : "(no public suffix data)") << "\n";
  return kExitOk;
}

}  // namespace

void AddInspectUrlCommand(CLI::App& inspect, int* exit_code) {
  auto args = std::make_shared<InspectUrlArgs>();
  CLI::App* cmd = inspect.add_subcommand(
      "url", "Parse a URL as a browser would (WHATWG), resolve it against --base, canonicalise it");
  cmd->add_option("input", args->input,
                  "The URL or link to parse; put -- before it if it starts with '-'")
      ->required();
  cmd->add_option("--base", args->base,
                  "Absolute URL to resolve INPUT against (e.g. the page URL)");
  CLI::Option* canonical =
      cmd->add_flag("--canonical", args->canonical, "Print the canonical form (the dedup key)");
  CLI::Option* details = cmd->add_flag(
      "--details", args->details,
      "Print components, canonical form, host key and registrable domain as name: value lines");
  canonical->excludes(details);
  cmd->add_flag("--keep-session-ids", args->keep_session_ids,
                "Canonical form: keep session-id parameters (jsessionid, phpsessid, ...)");
  cmd->add_flag("--keep-tracking", args->keep_tracking,
                "Canonical form: keep tracking parameters (utm_*, gclid, fbclid, ...)");
  cmd->add_flag("--sort-query", args->sort_query, "Canonical form: sort query parameters by name");
  cmd->add_option("--strip", args->strip,
                  "Canonical form: also remove this query parameter (repeatable; 'name*' = prefix)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->callback([args, exit_code] { *exit_code = RunInspectUrl(*args); });
}

}  // namespace crawler::cli
