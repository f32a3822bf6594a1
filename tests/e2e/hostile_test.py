#!/usr/bin/env python3
"""Hostile servers against `crawler crawl`, each on a loopback port of its own, bounded in time.

Scenarios:
  memory  64 hosts each answering with a 200 MB body: the crawler's peak RSS (VmHWM of the child,
          sampled from /proc) stays within its body memory budget (--body-memory-bytes, 128 MiB
          here) plus one body, its baseline (a crawl of one small page) and a margin for the
          worker threads' copies; without the budget it holds max_body_bytes per transfer
          (64 x 16 MiB).
  drain   two hosts whose responses never finish (a few bytes every 100 ms, above the minimum
          speed) and one ordinary page: SIGTERM stops the crawl within
          --transfer-drain-timeout (2 s here) plus a margin instead of the per-request --timeout
          (60 s); exit 0; the stuck URLs are not in the crawl log; a second run with the same
          data dir fetches them.

  traps   spider traps, one host each: an endless calendar (/cal?date=N), a session id in every
          link (?sid=<new token>), ever-longer paths (a new long segment per level), repeated
          segments (a/ and b/ relative links) and a query-parameter explosion (one more
          parameter per link). With the trap defaults and --max-urls-per-host 200 the crawl
          ends by itself within a bounded number of URLs, each trap counted in the stats and
          named in the crawl log.

--baseline runs a crawler without the new flags (to measure how an older build behaves; the
checks then report what it does wrong).
"""

import argparse
import collections
import http.server
import os
import re
import signal
import socketserver
import sys
import threading
import time

from crawlertest.e2e import (  # noqa: E402
    Crawl, Fatal, read_crawl_log, read_stats, run_scenario, wait_until)

MIB = 1 << 20


class HostileHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _head(self, status, length, content_type="text/html"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _small(self, body):
        data = body.encode()
        self._head(200, len(data))
        self.wfile.write(data)

    def do_GET(self):
        server = self.server
        with server.lock:
            server.requests.append((self.headers.get("Host", ""), self.path))
        path = self.path.split("?")[0]
        try:
            if path == "/robots.txt":
                self._head(404, 0)
            elif path == "/big":
                self._big()
            elif path == "/stuck" and server.stuck:
                self._stuck()
            elif path in ("/cal", "/s/page") or path.startswith(("/long/", "/r/", "/f")):
                self._small(self._trap_page(path))
            else:
                self._small("<html><body>ok</body></html>")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _trap_page(self, path):
        query = self.path.partition("?")[2]
        if path == "/cal":
            n = int(query.partition("=")[2] or 0)
            links = [f"/cal?date={n + 1}", f"/cal?date={n - 1}"]
        elif path == "/s/page":
            with self.server.lock:
                self.server.tokens += 1
                token = f"{self.server.tokens:08d}deadbeef{self.server.tokens * 7919:x}"
            links = [f"/s/page?sid={token}"]
        elif path.startswith("/long/"):
            depth = path.count("/")
            links = [f"segment-{depth:04d}-of-an-ever-longer-path/"]
        elif path.startswith("/r/"):
            links = ["a/", "b/"]
        else:
            params = [p for p in query.split("&") if p]
            links = ["?" + "&".join(params + [f"p{len(params)}={len(params)}"])]
        anchors = "".join(f'<a href="{link}">next</a>' for link in links)
        # The path in the text: pages that differ only by their links would be duplicates,
        # whose links are not followed.
        return f"<html><body><p>{self.path}</p>{anchors}</body></html>"

    def _big(self):
        total = 200 * 1000 * 1000
        self._head(200, total, "application/octet-stream")
        chunk = bytes(MIB)
        sent = 0
        while sent < total and not self.server.stopping.is_set():
            n = min(len(chunk), total - sent)
            self.wfile.write(chunk[:n])
            sent += n

    def _stuck(self):
        # 500 bytes/s: above libcurl's minimum speed (100 B/s), far below finishing.
        self._head(200, 1000 * 1000)
        deadline = time.monotonic() + 120
        while not self.server.stopping.is_set() and time.monotonic() < deadline:
            self.wfile.write(b"x" * 50)
            self.wfile.flush()
            self.server.stopping.wait(0.1)
        self.close_connection = True


class HostileServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # 64 crawler connections arrive at once; socketserver's default backlog (5) would drop
    # some handshakes and leave requests unanswered for seconds.
    request_queue_size = 256

    def __init__(self):
        super().__init__(("127.0.0.1", 0), HostileHandler)
        self.lock = threading.Lock()
        self.requests = []
        self.stuck = True
        self.tokens = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self):
        return self.server_address[1]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.shutdown()
        self.server_close()

    def count(self, path):
        with self.lock:
            return sum(1 for _, p in self.requests if p == path)


def write_seeds(work, name, urls):
    path = work(name)
    with open(path, "w") as f:
        f.write("\n".join(urls) + "\n")
    return path


def crawl_cmd(args, seeds, data_dir, port, extra):
    return [args.crawler, "crawl", "--seeds", seeds, "--data-dir", data_dir,
            "--connect-to", f"127.0.0.1:{port}", "--allow-network", "127.0.0.0/8",
            "--min-delay", "0ms", "--delay-factor", "0", "--quiet", *extra]


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def run_measured(cmd, stderr_path, timeout_s):
    """Runs a crawl to its end; (exit code, peak RSS in MiB sampled every 20 ms, seconds)."""
    crawl = Crawl(cmd, stderr_path)
    peak = 0
    start = time.monotonic()
    while crawl.running():
        if time.monotonic() - start > timeout_s:
            crawl.kill()
            raise Fatal(f"crawl did not finish within {timeout_s} s")
        value = peak_rss_kib(crawl.proc.pid)
        if value is not None:
            peak = max(peak, value)
        time.sleep(0.02)
    return crawl.proc.returncode, peak / 1024, time.monotonic() - start, crawl


def scenario_memory(args, checks, work):
    budget_mib, max_body_mib, hosts = 128, 16, 64
    with HostileServer() as server:
        base_seeds = write_seeds(work, "base.txt", ["http://h0.hostile.test/small"])
        rc, baseline, _, crawl = run_measured(
            crawl_cmd(args, base_seeds, work("base"), server.port, ()), work("base.stderr"), 120)
        checks.check(rc == 0, f"baseline crawl exited {rc}: {crawl.stderr()}")
        seeds = write_seeds(work, "seeds.txt",
                            [f"http://h{i}.hostile.test/big" for i in range(hosts)])
        extra = () if args.baseline else ("--body-memory-bytes", str(budget_mib * MIB))
        rc, peak, seconds, crawl = run_measured(
            crawl_cmd(args, seeds, work("data"), server.port, extra), work("crawl.stderr"), 400)
        fetched = server.count("/big")
    log, _ = read_crawl_log(os.path.join(work("data"), "crawl.log"))
    pages = [line for line in log if line.url.endswith("/big")]
    print(f"memory: {hosts} hosts x 200 MB, budget {budget_mib} MiB, max body {max_body_mib} MiB:"
          f" peak RSS {peak:.0f} MiB (baseline {baseline:.0f} MiB), {seconds:.1f} s,"
          f" {len(pages)} pages, {fetched} requests", flush=True)
    checks.check(rc == 0, f"crawl exited {rc}: {crawl.stderr()}")
    checks.check(len(pages) == hosts and all(p.status == 200 for p in pages),
                 f"expected {hosts} pages fetched with status 200, crawl log has {len(pages)}")
    # Two workers may each hold a copy of the body they process (decoding, WARC records).
    margin = 2 * 2 * max_body_mib + 32
    bound = baseline + budget_mib + max_body_mib + margin
    checks.check(peak <= bound,
                 f"peak RSS {peak:.0f} MiB above {bound:.0f} MiB (baseline {baseline:.0f} + "
                 f"budget {budget_mib} + one body {max_body_mib} + margin {margin})")


def scenario_drain(args, checks, work):
    drain_s = 2
    with HostileServer() as server:
        seeds = write_seeds(work, "seeds.txt", ["http://h0.hostile.test/stuck",
                                                "http://h1.hostile.test/stuck",
                                                "http://h2.hostile.test/ok"])
        extra = () if args.baseline else ("--transfer-drain-timeout", f"{drain_s}s")
        cmd = crawl_cmd(args, seeds, work("data"), server.port, ("--timeout", "60s", *extra))
        crawl = Crawl(cmd, work("crawl.stderr"))
        try:
            wait_until(lambda: server.count("/stuck") >= 2 or not crawl.running(), 60,
                       "both stuck requests")
            time.sleep(0.5)  # the stuck bodies are under way
            checks.check(crawl.running(), f"crawl ended early: {crawl.stderr()}")
            start = time.monotonic()
            crawl.signal(signal.SIGTERM)
            rc = crawl.wait(120)
            seconds = time.monotonic() - start
        finally:
            crawl.kill()
        print(f"drain: SIGTERM with 2 stuck transfers: exit {rc} after {seconds:.1f} s"
              f" (drain timeout {drain_s} s, request timeout 60 s)", flush=True)
        checks.check(rc == 0, f"stopped crawl exited {rc}: {crawl.stderr()}")
        checks.check(seconds <= drain_s + 8,
                     f"SIGTERM took {seconds:.1f} s, more than the drain timeout {drain_s} s + 8")
        log, _ = read_crawl_log(os.path.join(work("data"), "crawl.log"))
        stuck_lines = [line for line in log if line.url.endswith("/stuck")]
        checks.check(not stuck_lines,
                     f"the aborted URLs must not be final, crawl log has {stuck_lines}")

        # Resumed, the same data dir fetches the handed-back URLs (now answered in full).
        server.stuck = False
        crawl = Crawl(cmd, work("crawl2.stderr"))
        try:
            rc = crawl.wait(120)
        finally:
            crawl.kill()
        checks.check(rc == 0, f"resumed crawl exited {rc}: {crawl.stderr()}")
        log, _ = read_crawl_log(os.path.join(work("data"), "crawl.log"))
        done = sorted(line.url for line in log
                      if line.url.endswith("/stuck") and line.status == 200)
        checks.check(done == ["http://h0.hostile.test/stuck", "http://h1.hostile.test/stuck"],
                     f"the resumed crawl must fetch both stuck URLs, crawl log has {done}")


def scenario_traps(args, checks, work):
    cap = 200
    traps = {"cal": "http://cal.trap.test/cal?date=0",
             "sid": "http://sid.trap.test/s/page?sid=first",
             "long": "http://long.trap.test/long/",
             "rep": "http://rep.trap.test/r/",
             "facet": "http://facet.trap.test/f?p0=0"}
    stats_path = work("stats.json")
    with HostileServer() as server:
        seeds = write_seeds(work, "seeds.txt", list(traps.values()))
        # Trap pages look alike; near-duplicate detection would stop some traps by itself.
        extra = ("--stats-json", stats_path, "--no-fingerprints")
        if not args.baseline:
            extra += ("--max-urls-per-host", str(cap))
        crawl = Crawl(crawl_cmd(args, seeds, work("data"), server.port, extra),
                      work("crawl.stderr"))
        start = time.monotonic()
        try:
            try:
                rc = crawl.proc.wait(timeout=120)
            except Exception:
                crawl.signal(signal.SIGTERM)
                rc = crawl.wait(60)
                checks.fail("the crawl did not end by itself within 120 s (stopped by SIGTERM)")
        finally:
            crawl.kill()
        seconds = time.monotonic() - start
        with server.lock:
            requests = len(server.requests)
    stats = read_stats(stats_path)
    log, _ = read_crawl_log(os.path.join(work("data"), "crawl.log"))
    kinds = collections.Counter()
    for line in log:
        m = re.search(r"trap links dropped: \d+ \(last: (\w+)\)", line.detail)
        if m:
            kinds[m.group(1)] += 1
    print(f"traps: exit {rc} after {seconds:.1f} s, {requests} requests, seen_urls "
          f"{stats.get('seen_urls')}, queued {stats.get('queued')}, trap_links "
          f"{stats.get('trap_links')}, urls_rejected_by_limit "
          f"{stats.get('urls_rejected_by_limit')}, crawl log trap lines {dict(kinds)}", flush=True)
    checks.check(rc == 0, f"crawl exited {rc}: {crawl.stderr()}")
    checks.check(stats.get("complete") is True, "the crawl must end complete (frontier exhausted)")
    bound = len(traps) * cap
    checks.check(stats.get("seen_urls", bound + 1) <= bound,
                 f"seen_urls {stats.get('seen_urls')} above {len(traps)} hosts x {cap}")
    checks.check(stats.get("trap_links", 0) > 0, "trap_links must count the dropped links")
    checks.check(stats.get("urls_rejected_by_limit", 0) > 0,
                 "the per-host URL cap must have stopped the calendar and the session ids")
    for kind in ("trap_too_long", "trap_repeated_segments", "trap_too_many_params"):
        checks.check(kinds[kind] > 0, f"no crawl log line names {kind}")


SCENARIOS = {"memory": scenario_memory, "drain": scenario_drain, "traps": scenario_traps}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--baseline", action="store_true",
                        help="a crawler without --body-memory-bytes and --transfer-drain-timeout")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    return run_scenario(args, SCENARIOS, "e2e hostile", "e2e-hostile")


if __name__ == "__main__":
    sys.exit(main())
