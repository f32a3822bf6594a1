// crawlctl's `hosts` commands (docs/crawlctl.md "Host control"): a collection's hosts listed,
// shown, blocked, slowed, capped and dropped through the Admin API's host calls, which the
// scheduler routes to the partition that owns each host. Like commands.h: each prints a table
// (or the reply's JSON with --json) and returns the exit code. An unknown host, like any other
// bad input, is kExitInvalid (2); an unknown collection kExitNotFound (5).
//
// Thread-safety: as Session (one thread).
#ifndef CRAWLER_TOOLS_CRAWLCTL_HOST_COMMANDS_H_
#define CRAWLER_TOOLS_CRAWLCTL_HOST_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "crawler/v1/frontier.pb.h"
#include "tools/crawlctl/commands.h"

namespace crawler::crawlctl {

struct HostListOptions {
  std::string sort = "queued";  // queued | errors | next-due
  std::string suffix;           // this host and the hosts under it; empty: all
  uint32_t page_size = 50;      // [1, 1000]
  std::string page_token;       // from the previous page's last line
};
// `hosts list NAME`: one page, then the token of the next (if any).
int ListHosts(Session& session, const std::string& name, const HostListOptions& options);
// `hosts get NAME HOST`.
int GetHost(Session& session, const std::string& name, const std::string& host);
// `hosts block NAME HOST --until TIME | --for DURATION`: `until` is an RFC 3339 time.
int BlockHost(Session& session, const std::string& name, const std::string& host,
              absl::Time until);
// `hosts unblock NAME HOST`.
int UnblockHost(Session& session, const std::string& name, const std::string& host);
// `hosts delay NAME HOST DURATION` (0 clears it).
int SetHostDelay(Session& session, const std::string& name, const std::string& host,
                 absl::Duration delay);
// `hosts limit NAME HOST N|none` (nullopt: the collection's limit again).
int SetHostPageLimit(Session& session, const std::string& name, const std::string& host,
                     std::optional<uint64_t> max_pages);
// `hosts drop NAME HOST`: prints how many URLs were dropped.
int DropHostQueue(Session& session, const std::string& name, const std::string& host);
struct HostUrlsOptions {
  std::string state = "any";  // any | queued | leased | waiting | done | dropped
  uint32_t page_size = 50;
  std::string page_token;
};
// `hosts urls NAME HOST`.
int ListHostUrls(Session& session, const std::string& name, const std::string& host,
                 const HostUrlsOptions& options);

// The tables (exposed for tests).
std::string FormatHostList(const v1::ListHostsResponse& response);
std::string FormatHostSummary(const v1::HostSummary& host);
std::string FormatHostDetail(const v1::GetHostResponse& response);
std::string FormatHostUrls(const v1::ListHostUrlsResponse& response);

}  // namespace crawler::crawlctl

#endif  // CRAWLER_TOOLS_CRAWLCTL_HOST_COMMANDS_H_
