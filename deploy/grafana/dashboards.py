#!/usr/bin/env python3
"""Writes the crawler's Grafana dashboards (deploy/grafana/dashboards/*.json) from the panel
lists below, so that every dashboard shares its layout, variables and units. The JSON files are
committed; tests/k8s/deploy_test.py checks they are what this script writes, checks them against
Grafana's schema types, and the cluster test runs every query against a Prometheus that scraped a
real crawl (each must return data).

usage: deploy/grafana/dashboards.py [OUT_DIR]        (default: deploy/grafana/dashboards)

Metric names and labels: docs/metrics.md. Queries use the variables $datasource and
$collection; rates use $__rate_interval.
"""
import json
import os
import sys

C = 'collection=~"$collection"'
ERRORS = C + ',outcome=~"client_error|server_error|network_error"'
SENT = 'direction="sent"'
SUPPRESSED = 'direction="suppressed"'
RATE = "$__rate_interval"


def rate(metric, selector="", by=""):
    inner = f"rate({metric}{{{selector}}}[{RATE}])" if selector else f"rate({metric}[{RATE}])"
    return f"sum by ({by}) ({inner})" if by else f"sum({inner})"


def quantiles(histogram, selector=""):
    """p50 and p95 of a histogram, over every series."""
    return [(f"histogram_quantile({q}, {rate(histogram + '_bucket', selector, 'le')})",
             f"p{int(q * 100)}") for q in (0.5, 0.95)]


def or_zero(expr, base):
    """`expr`, or 0 for each series of `base` when `expr` has none yet (counters of errors are
    made at the first error)."""
    return f"({expr}) or ({base} * 0)"


def panel(title, targets, unit="short", description="", kind="timeseries", stack=False):
    """targets: [(expr, legend)]."""
    custom = {"fillOpacity": 10, "showPoints": "never"}
    if stack:
        custom["stacking"] = {"mode": "normal", "group": "A"}
    return {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "fieldConfig": {"defaults": {"unit": unit, "custom": custom if kind == "timeseries" else {}},
                        "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True}}
        if kind == "timeseries" else {"reduceOptions": {"calcs": ["lastNotNull"]}},
        "targets": [{"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend,
                     "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                    for i, (expr, legend) in enumerate(targets)],
    }


def rpc_panels(service):
    m = f"crawler_{service}_rpc"
    return [
        panel("RPC latency p95 by method",
              [(f"histogram_quantile(0.95, sum by (le, method) (rate({m}_duration_seconds_bucket[{RATE}])))",
                "{{method}}")], unit="s",
              description="Server side, from the call's arrival to its reply."),
        panel("RPC calls and errors per second",
              [(rate(f"{m}_duration_seconds_count", by="method"), "{{method}}"),
               (or_zero(rate(f"{m}_errors_total", by="method, code"),
                        rate(f"{m}_duration_seconds_count", by="method")), "errors {{method}} {{code}}")],
              unit="reqps", description="Errors: calls that ended with a status other than OK."),
    ]


DASHBOARDS = {
    "crawler-overview": ("Crawler: overview", [
        panel("Pages per second by outcome",
              [(rate("crawler_fetcher_pages_total", C, "outcome"), "{{outcome}}")], unit="reqps",
              stack=True, description="Every URL the fetchers finished, by outcome class."),
        panel("Download bandwidth",
              [(rate("crawler_fetcher_bytes_total", C, "collection"), "{{collection}}")],
              unit="Bps", description="Body bytes received."),
        panel("Errors by class (share of pages)",
              [(f'{rate("crawler_fetcher_pages_total", ERRORS, "outcome")}'
                f' / ignoring(outcome) group_left {rate("crawler_fetcher_pages_total", C)}', "{{outcome}}")],
              unit="percentunit"),
        panel("Politeness wait (ready URL to its host's slot)",
              quantiles("crawler_fetcher_politeness_wait_seconds"), unit="s"),
        panel("Frontier: queued URLs and due backlog",
              [(f"sum by (collection) (crawler_frontier_urls_queued{{{C}}})", "queued {{collection}}"),
               (f"sum by (collection) (crawler_frontier_due_backlog{{{C}}})", "due {{collection}}")],
              description="Queued: every URL waiting (due or not). Due: ready to lease now."),
        panel("Exchange overhead (URLs sent to other partitions per page)",
              [(f'{rate("crawler_fetcher_exchange_urls_total", SENT)} / {rate("crawler_fetcher_pages_total")}',
                "sent per page"),
               (f'{rate("crawler_fetcher_exchange_urls_total", SUPPRESSED)} / {rate("crawler_fetcher_pages_total")}',
                "suppressed per page")],
              description="Outlinks batched to their owning partition, and those the popular-URL cache kept back."),
        panel("Duplicates (share of lookups)",
              [(f'{rate("crawler_dedup_lookups_total", by="result")} / ignoring(result) group_left {rate("crawler_dedup_lookups_total")}',
                "{{result}}")], unit="percentunit",
              description="The dedup index's answers: unique, exact or near duplicate."),
        panel("Estimated freshness per collection",
              [(f"crawler_scheduler_estimated_freshness_ratio{{{C}}}", "{{collection}}")],
              unit="percentunit",
              description="Expected share of re-visited pages whose copy is current."),
    ]),
    "crawler-fetcher": ("Crawler: fetcher", [
        panel("Transfers in flight", [("sum by (pod) (crawler_fetcher_transfers_in_flight)", "{{pod}}")]),
        panel("Hosts: ready in the frontiers, held by the fetchers",
              [("sum(crawler_frontier_hosts_ready)", "ready in the frontiers"),
               ("sum(crawler_fetcher_hosts)", "held by the fetchers"),
               ("sum(crawler_fetcher_urls_buffered)", "URLs buffered in the fetchers")],
              description="Ready: hosts with queued URLs below their caps. Held: hosts with leased "
                          "URLs in a fetcher, ready or waiting for politeness."),
        panel("Leases per second by result",
              [(rate("crawler_fetcher_leases_total", by="result"), "{{result}}")], unit="reqps",
              description="Taken from the frontier, let expire (abandoned), handed back at a stop."),
        panel("Fetch latency", quantiles("crawler_fetcher_fetch_duration_seconds"), unit="s",
              description="Request start to the last byte."),
        panel("Politeness claims by result",
              [(rate("crawler_fetcher_politeness_claims_total", by="result"), "{{result}}")], unit="reqps"),
        panel("Politeness store round trip", quantiles("crawler_fetcher_politeness_claim_duration_seconds"),
              unit="s", description="One batch of claims and releases (Redis or in process)."),
        panel("Politeness store reachable", [("min by (pod) (crawler_fetcher_politeness_store_up)", "{{pod}}")],
              description="1: the store answers; 0: no request is sent (fail closed)."),
        panel("Robots.txt denials per second",
              [(rate("crawler_fetcher_robots_denied_total", C, "collection"), "{{collection}}")], unit="reqps"),
        panel("WARC records and bytes per second",
              [(rate("crawler_fetcher_warc_records_total"), "records"),
               (rate("crawler_fetcher_warc_bytes_total"), "bytes")]),
        panel("Duplicates found by the fetchers",
              [(rate("crawler_fetcher_duplicates_total", C, "kind"), "{{kind}}")], unit="reqps"),
        panel("Failed calls to the frontier and the dedup index",
              [(rate("crawler_fetcher_frontier_errors_total"), "frontier calls failed (retried)"),
               (rate("crawler_fetcher_dedup_unavailable_total"), "pages archived in full: dedup unreachable")],
              unit="reqps"),
        panel("Rendering (collections with render on)",
              [(rate("crawler_fetcher_pages_rendered_total"), "pages rendered"),
               (rate("crawler_fetcher_rendered_links_total"), "links found by rendering"),
               (rate("crawler_fetcher_renders_cut_total"), "renders cut (limit, hung, crash)")],
              unit="reqps"),
    ]),
    "crawler-frontier": ("Crawler: frontier", [
        panel("Queued URLs by partition",
              [(f"sum by (partition) (crawler_frontier_urls_queued{{{C}}})", "partition {{partition}}")]),
        panel("Due backlog by partition",
              [(f"sum by (partition) (crawler_frontier_due_backlog{{{C}}})", "partition {{partition}}")]),
        panel("Active leases", [("sum by (partition) (crawler_frontier_leases_active)", "partition {{partition}}")]),
        panel("URLs added, completed and expired per second",
              [(rate("crawler_frontier_urls_added_total", C, "partition"), "added, partition {{partition}}"),
               (rate("crawler_frontier_completions_total", C, "partition"), "completed, partition {{partition}}"),
               (rate("crawler_frontier_leases_expired_total", C, "partition"), "lease expired, partition {{partition}}")],
              unit="reqps", description="Added: new to the seen-set (seeds, outlinks of every partition)."),
        panel("URLs held for other partitions, hosts moving",
              [(f"sum by (partition) (crawler_frontier_held_urls{{{C}}})", "held, partition {{partition}}"),
               (f"sum by (partition) (crawler_frontier_hosts_moving{{{C}}})", "hosts moving, partition {{partition}}")],
              description="Non-zero only while the fleet reshards."),
        panel("Data volume free",
              [("min by (pod) (crawler_frontier_disk_free_bytes / crawler_frontier_disk_size_bytes)", "{{pod}}")],
              unit="percentunit"),
        *rpc_panels("frontier"),
    ]),
    "crawler-dedup": ("Crawler: dedup", [
        panel("Lookups per second by result",
              [(rate("crawler_dedup_lookups_total", by="result"), "{{result}}")], unit="reqps"),
        panel("Index entries added per second",
              [(rate("crawler_dedup_index_entries_added_total"), "entries added")], unit="reqps"),
        *rpc_panels("dedup"),
    ]),
    "crawler-scheduler": ("Crawler: scheduler", [
        panel("Collections by state", [("sum by (state) (crawler_scheduler_collections)", "{{state}}")]),
        panel("Estimated freshness", [(f"crawler_scheduler_estimated_freshness_ratio{{{C}}}", "{{collection}}")],
              unit="percentunit"),
        panel("Re-visit spend (share of the budget)",
              [(f"crawler_scheduler_revisit_spend_ratio{{{C}}}", "{{collection}}")], unit="percentunit"),
        panel("Partitions and reshard phase",
              [("max(crawler_scheduler_partitions)", "partitions routed by"),
               ("max by (phase) (crawler_scheduler_reshard_phase) > 0", "phase: {{phase}}")],
              description="During a reshard's moving phase hosts are still routed by the old count."),
        panel("Reshard: hosts moved and left",
              [("max(crawler_scheduler_reshard_hosts_moved)", "hosts moved"),
               ("max(crawler_scheduler_reshard_hosts_left)", "hosts left"),
               ("max(crawler_scheduler_reshard_held_urls)", "URLs held for other partitions")],
              description="The reshard under way or the last one (docs/architecture.md §4)."),
        panel("Reshard: hosts and URLs moved per second",
              [("deriv(max(crawler_scheduler_reshard_hosts_moved)[5m:])", "hosts/s"),
               ("deriv(max(crawler_scheduler_reshard_urls_moved)[5m:])", "URLs/s")]),
        *rpc_panels("scheduler"),
    ]),
}


def dashboard(uid, title, panels):
    for i, p in enumerate(panels):
        p["id"] = i + 1
        p["gridPos"] = {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)}
    return {
        "uid": uid,
        "title": title,
        "description": "The crawler's metrics (docs/metrics.md). Written by deploy/grafana/dashboards.py.",
        "tags": ["crawler"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "30s",
        "time": {"from": "now-1h", "to": "now"},
        "links": [{"title": "Crawler dashboards", "type": "dashboards", "tags": ["crawler"],
                   "asDropdown": True, "icon": "external link", "includeVars": True,
                   "keepTime": True, "targetBlank": False, "tooltip": "", "url": ""}],
        "templating": {"list": [
            {"name": "datasource", "label": "Prometheus", "type": "datasource",
             "query": "prometheus", "hide": 0},
            {"name": "collection", "label": "Collection", "type": "query",
             "datasource": {"type": "prometheus", "uid": "${datasource}"},
             "query": "label_values(crawler_fetcher_pages_total, collection)",
             "refresh": 2, "includeAll": True, "multi": True, "allValue": ".*", "sort": 1, "hide": 0},
        ]},
        "annotations": {"list": []},
        "panels": panels,
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboards")
    os.makedirs(out, exist_ok=True)
    for uid, (title, panels) in DASHBOARDS.items():
        with open(os.path.join(out, f"{uid}.json"), "w") as f:
            json.dump(dashboard(uid, title, panels), f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
