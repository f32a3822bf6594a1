"""Shared helpers of the end-to-end tests (tests/e2e): run websim and `crawler crawl` on loopback,
and parse what they leave behind (websim's ground truth and request log, the crawl log, the
stats JSON). Python 3 standard library only.

Every wait here is bounded, every child process is stopped in a `finally`, and websim itself
carries --max-seconds, so a test killed from outside (CTest TIMEOUT) leaves nothing running for
long. Formats: docs/websim.md ("Ground truth", "Request log") and
services/fetcher/crawl_report.h (crawl log).
"""

import collections
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from .ports import free_port

# websim's endpoints for tests; never part of a crawl.
WEBSIM_INTERNAL_PREFIX = "/__websim/"

# partition: the X-Crawler-Partition header websim logged ("-" when the crawler sent none).
# ns: CLOCK_MONOTONIC at arrival; wall_ns: CLOCK_REALTIME at the same instant (None from a
# websim without that field).
Request = collections.namedtuple("Request",
                                 "ns host target status bytes conn method partition wall_ns",
                                 defaults=(None,))
LogLine = collections.namedtuple("LogLine", "time url status bytes duration_ms outcome detail")


class Checks:
    """Collects failed checks instead of stopping at the first, so one run shows every problem."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def check(self, ok, message):
        if not ok:
            self.failures.append(message)
            print(f"  FAIL: {message}", flush=True)
        return ok

    def fail(self, message):
        self.check(False, message)

    def exit_code(self):
        if self.failures:
            print(f"{self.name}: {len(self.failures)} check(s) failed", flush=True)
            return 1
        print(f"{self.name}: all checks passed", flush=True)
        return 0


class Fatal(Exception):
    """A step the rest of the test cannot do without (a server that does not start, ...)."""


def run_scenario(args, scenarios, name, prefix, errors=(Fatal,)):
    """The body of every e2e script's main(): runs `scenarios[args.scenario]` in a fresh work
    directory (kept on failure or with args.keep), collecting failed checks; an exception of
    `errors` counts as one failed check. Returns the exit status."""
    checks = Checks(f"{name} {args.scenario}")
    work = WorkDir(f"{prefix}-{args.scenario}-", keep=args.keep)
    try:
        scenarios[args.scenario](args, checks, work)
    except errors as e:
        checks.fail(str(e))
    rc = checks.exit_code()
    work.finish(failed=rc != 0)
    return rc


def wait_until(predicate, timeout_s, what, poll_s=0.05):
    """Polls `predicate` until it returns a truthy value; Fatal after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise Fatal(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(poll_s)


def monotonic_ns():
    # CLOCK_MONOTONIC, the clock of websim's request log (docs/websim.md "Request log").
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class WorkDir:
    """A temporary directory, removed at the end unless the test failed or --keep was given."""

    def __init__(self, prefix, keep=False):
        self.path = tempfile.mkdtemp(prefix=prefix)
        self.keep = keep

    def __call__(self, *parts):
        return os.path.join(self.path, *parts)

    def finish(self, failed):
        if failed or self.keep:
            print(f"  files kept in {self.path}", flush=True)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Websim:
    """One websim process on an ephemeral loopback port, with truth, seeds and request log."""

    def __init__(self, binary, workdir, hosts, pages, seed, extra_args=(), max_seconds=900):
        self.binary = binary
        self.dir = workdir
        self.hosts = hosts
        self.pages = pages
        self.seed = seed
        self.extra_args = list(extra_args)
        self.max_seconds = max_seconds
        self.port_file = workdir("websim.port")
        self.log_file = workdir("websim.log")
        self.truth_file = workdir("truth.tsv")
        self.seeds_file = workdir("seeds.txt")
        self.stderr_file = workdir("websim.stderr")
        self.proc = None
        self.port = None
        self.exit_code = None

    def start(self):
        cmd = [self.binary, "--hosts", str(self.hosts), "--pages", str(self.pages),
               "--seed", str(self.seed), "--port", "0", "--port-file", self.port_file,
               "--log", self.log_file, "--truth", self.truth_file,
               "--seeds-file", self.seeds_file, "--max-seconds", str(self.max_seconds),
               *self.extra_args]
        with open(self.stderr_file, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)

        def ready():
            if self.proc.poll() is not None:
                raise Fatal(f"websim exited with {self.proc.returncode}: {self.stderr()}")
            try:
                with open(self.port_file) as f:
                    text = f.read().strip()
            except FileNotFoundError:
                return None
            return int(text) if text.isdigit() else None

        # The port file is written (atomic rename) once the socket accepts connections.
        self.port = wait_until(ready, 120, "websim's port file")
        return self

    def stderr(self):
        try:
            with open(self.stderr_file, errors="replace") as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

    def stop(self):
        """SIGTERM and wait: the request log is complete only once websim has exited."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
                raise Fatal("websim did not stop within 60 s of SIGTERM")
        self.exit_code = self.proc.returncode
        return self.exit_code

    def truth(self):
        """kind -> set of URLs, and the number of lines per kind (to catch repeated lines)."""
        kinds = collections.defaultdict(set)
        lines = collections.Counter()
        with open(self.truth_file) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                kind, url = line.split("\t")
                kinds[kind].add(url)
                lines[kind] += 1
        return kinds, lines

    def seeds(self):
        with open(self.seeds_file) as f:
            return [line.strip() for line in f if line.strip() and not line.startswith("#")]

    def requests(self):
        """Every request of the log except websim's own endpoints, in arrival order."""
        return read_request_log(self.log_file)


def read_request_log(path):
    """websim's request log (docs/websim.md, "Request log") without websim's own endpoints, in
    arrival order."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line still being written (only while websim runs)
            fields = line.rstrip("\n").split("\t")
            r = Request(int(fields[0]), fields[1], fields[2], int(fields[3]), int(fields[4]),
                        int(fields[5]), fields[6], fields[7] if len(fields) > 7 else "-",
                        int(fields[8]) if len(fields) > 8 else None)
            if not r.target.startswith(WEBSIM_INTERNAL_PREFIX):
                out.append(r)
    out.sort(key=lambda r: r.ns)
    return out


def url_of(request):
    return f"http://{request.host}{request.target}"


# websim's sitemaps: /sitemap.xml, and the parts of one that is an index (docs/websim.md).
WEBSIM_SITEMAP = re.compile(r"/sitemap(-[1-9][0-9]*)?\.xml")


def is_sitemap_request(request):
    return WEBSIM_SITEMAP.fullmatch(request.target) is not None


def is_page_request(request):
    """Requests for collection pages: neither robots.txt nor a sitemap."""
    return request.target != "/robots.txt" and not is_sitemap_request(request)


# What the scripts of websim's scripted hosts load (docs/websim.md, "Scripted sites"): the
# router, a page's links as JSON, a hostile page's script that never arrives. A render's
# requests, not pages.
WEBSIM_SUBRESOURCE = re.compile(r"/_app\.js|/_links/[0-9]+\.json|/_hostile/slow\.js")


def is_subresource_request(request):
    return WEBSIM_SUBRESOURCE.fullmatch(request.target) is not None


def check_scripted_crawl(checks, requests, truth, rendered, what):
    """One crawl of a web of scripted hosts with sitemaps off (they list every page), from
    websim's log: rendering every page, it fetched them all, those only script links reach
    included, and its browser loaded subresources (through the crawler: the browser reaches
    nothing by itself); not rendering, exactly the pages reachable without scripts, and no
    subresource. No page fetched twice either way. Returns (pages fetched, subresource
    requests)."""
    pages = truth["page"] | truth["seed"]
    render_only = truth["render_only"]
    checks.check(render_only, f"{what}: websim's truth has no render-only page")
    counts = collections.Counter(url_of(r) for r in requests
                                 if is_page_request(r) and not is_subresource_request(r))
    fetched = set(counts) & pages
    subresources = sum(1 for r in requests if is_subresource_request(r))
    twice = sorted(u for u, n in counts.items() if n > 1)
    checks.check(not twice, f"{what}: {len(twice)} URLs fetched more than once, e.g. {twice[:3]}")
    want = pages if rendered else pages - render_only
    checks.check(fetched == want,
                 f"{what}: fetched {len(fetched)} of {len(pages)} pages, want {len(want)} "
                 f"({len(render_only)} reachable only by rendering); missing e.g. "
                 f"{sorted(want - fetched)[:3]}, extra e.g. {sorted(fetched - want)[:3]}")
    checks.check(bool(subresources) == rendered,
                 f"{what}: {subresources} subresource requests reached websim")
    return fetched, subresources


def check_renders(checks, log_lines, fetched, what):
    """Every page of `fetched` rendered once, to the end (outcome `rendered`), per the crawl
    log's details ("rendered: <outcome>, +N links"). Returns outcome -> pages."""
    outcomes = collections.Counter(l.detail.split("rendered: ", 1)[1].split(",")[0]
                                   for l in log_lines if "rendered: " in l.detail)
    checks.check(outcomes == collections.Counter({"rendered": len(fetched)}),
                 f"{what}: renders {dict(outcomes)}, want {len(fetched)} rendered")
    return outcomes


def revisit_times(requests, start_ns):
    """Times (seconds after start_ns, sorted) of the re-visits in websim's request log: GETs
    answered 200 or 304 of a URL that had been fetched before. Sitemaps count: a re-visiting
    collection reads them again under its re-visit budget, as it does pages (docs/recrawl.md,
    "Sitemaps"); robots.txt and websim's own endpoints do not."""
    seen = set()
    times = []
    for r in sorted(requests, key=lambda r: r.ns):
        if (r.method != "GET" or r.status not in (200, 304) or r.target == "/robots.txt"
                or r.target.startswith(WEBSIM_INTERNAL_PREFIX)):
            continue
        url = url_of(r)
        if url in seen:
            times.append((r.ns - start_ns) / 1e9)
        seen.add(url)
    return times


def cap_excess(times, budget_per_s):
    """The most by which the re-visits made from a start (times: seconds after it, sorted) ran
    ahead of budget x time. Under the crawler's token bucket (docs/recrawl.md §11) this is at
    most the tokens in the bucket at the start (one when the cap begins, none while a policy
    asks for more than the budget), plus requests released but not yet logged."""
    return max((k + 1 - budget_per_s * t for k, t in enumerate(times)), default=0.0)


def crawl_command(crawler, seeds_file, data_dir, port, stats_json, min_delay_ms, extra=()):
    return [crawler, "crawl", "--seeds", seeds_file, "--data-dir", data_dir,
            "--connect-to", f"127.0.0.1:{port}", "--allow-network", "127.0.0.0/8",
            "--min-delay", f"{min_delay_ms}ms", "--delay-factor", "0",
            "--stats-json", stats_json, "--quiet", *extra]


class Crawl:
    """One `crawler crawl` process; stderr goes to a file of the work directory."""

    def __init__(self, cmd, stderr_path):
        self.cmd = cmd
        self.stderr_path = stderr_path
        self.started_ns = monotonic_ns()
        self.signalled_ns = None
        with open(stderr_path, "ab") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def wait(self, timeout_s):
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
            raise Fatal(f"crawl did not finish within {timeout_s:.0f} s: {' '.join(self.cmd)}")

    def running(self):
        return self.proc.poll() is None

    def signal(self, sig):
        self.signalled_ns = monotonic_ns()
        self.proc.send_signal(sig)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def stderr(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read().strip()


class TreeMemory:
    """Samples the memory of a process and of its descendants (a browser it started, with the
    browser's renderers) every `interval_s` on a thread, until stop(): proportional set sizes,
    as the crawler's own memory watch counts them."""

    def __init__(self, pid, interval_s=0.1):
        self.pid = pid
        self.interval_s = interval_s
        self.peak_self = self.peak_descendants = self.peak_total = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _parents():
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as f:
                        parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        return parents

    @staticmethod
    def _memory(pid):
        """Its proportional set size (shared pages split between their processes)."""
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        return int(line.split()[1]) * 1024
        except (OSError, IndexError, ValueError):
            pass
        return 0

    def _run(self):
        while not self._stop.wait(self.interval_s):
            parents = self._parents()
            children = collections.defaultdict(list)
            for pid, ppid in parents.items():
                children[ppid].append(pid)
            tree, todo = [], list(children[self.pid])
            while todo and len(tree) <= len(parents):
                pid = todo.pop()
                tree.append(pid)
                todo.extend(children[pid])
            own = self._memory(self.pid)
            below = sum(self._memory(pid) for pid in tree)
            self.peak_self = max(self.peak_self, own)
            self.peak_descendants = max(self.peak_descendants, below)
            self.peak_total = max(self.peak_total, own + below)
            self.samples += 1

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=10)
        return self


def read_stats(path):
    with open(path) as f:
        return json.load(f)


# time url status bytes duration_ms outcome detail (services/fetcher/crawl_report.h).
CRAWL_LOG_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
CRAWL_LOG_OUTCOME = re.compile(r"[a-z_]+")


def read_crawl_log(path):
    """(well-formed lines, malformed lines) of the crawl log. Each field is checked for its
    form, so that two lines run together (a torn line followed by another) are caught even
    when the field count happens to come out right."""
    good, bad = [], []
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            try:
                if not line.endswith("\n") or len(fields) != 7 \
                        or not CRAWL_LOG_TIME.fullmatch(fields[0]) \
                        or not fields[1].startswith(("http://", "https://")) \
                        or not CRAWL_LOG_OUTCOME.fullmatch(fields[5]):
                    raise ValueError
                good.append(LogLine(fields[0], fields[1], int(fields[2]), int(fields[3]),
                                    int(fields[4]), fields[5], fields[6]))
            except ValueError:
                bad.append(line)
    return good, bad


def politeness_gaps(requests, run_starts_ns=(), wall_clock=False):
    """Per host, the gaps between consecutive request arrivals (ns), robots.txt included, on
    the monotonic clock, or with `wall_clock` on the wall clock (see check_politeness).

    `run_starts_ns` are the start times of restarted crawler processes. A restarted process has
    fresh in-process politeness state, so its first request to a host may follow the killed
    process's last one sooner than the delay: gaps between requests of different runs are
    excluded (and returned apart, for the report). Returns (gaps, cross_run_gaps), each a list of
    (gap_ns, host, earlier_target, later_target).
    """
    by_host = collections.defaultdict(list)
    for r in requests:
        by_host[r.host].append(r)
    gaps, cross = [], []
    for host, rs in by_host.items():
        rs.sort(key=lambda r: r.ns)
        for a, b in zip(rs, rs[1:]):
            gap = b.wall_ns - a.wall_ns if wall_clock else b.ns - a.ns
            entry = (gap, host, a.target, b.target)
            if run_index(a.ns, run_starts_ns) != run_index(b.ns, run_starts_ns):
                cross.append(entry)
            else:
                gaps.append(entry)
    return gaps, cross


def run_index(ns, run_starts_ns):
    return sum(1 for start in run_starts_ns if ns >= start)


def check_run_partition(checks, requests, run_starts_ns):
    """Requests are assigned to crawler runs by arrival time; a TCP connection belongs to exactly
    one process, so a connection seen in two runs means that assignment is wrong (a request of
    the killed process parsed after the restart). Checked rather than assumed."""
    runs_of_conn = collections.defaultdict(set)
    for r in requests:
        runs_of_conn[r.conn].add(run_index(r.ns, run_starts_ns))
    mixed = [c for c, runs in runs_of_conn.items() if len(runs) > 1]
    checks.check(not mixed, f"run assignment by arrival time is ambiguous: connections "
                            f"{mixed[:5]} carry requests on both sides of a restart")


def check_politeness(checks, requests, min_gap_ms, run_starts_ns=(), wall_clock=False):
    """Every gap >= the configured delay, with no slack. Returns (min gap ns, gap count).

    The gaps are judged on the clock that keeps the crawler's politeness timers: the monotonic
    clock for timers in the crawler's process, the wall clock (`wall_clock`) for timers in Redis,
    whose TIME is the wall clock. The two tick at one rate on most machines, but a virtual machine
    whose wall clock is being corrected can see them differ by 0.5% for minutes (300 ms of one is
    298.5 ms of the other): the rate difference over the run is printed when it exceeds 100 ppm.
    """
    if wall_clock:
        if any(r.wall_ns is None for r in requests):
            checks.fail("websim's log has no wall-clock field to judge Redis-kept delays on")
            return None, 0
        skew = clock_rate_difference(requests)
        if skew is not None and abs(skew) > 100e-6:
            print(f"  the wall clock ran {skew * 1e6:+.0f} ppm against the monotonic clock over "
                  f"the run; gaps judged on the wall clock (Redis' TIME)", flush=True)
    gaps, cross = politeness_gaps(requests, run_starts_ns, wall_clock)
    min_gap_ns = min_gap_ms * 1_000_000
    violations = sorted(g for g in gaps if g[0] < min_gap_ns)
    checks.check(not violations,
                 f"{len(violations)} request gaps below {min_gap_ms} ms; smallest: " +
                 ", ".join(f"{g[1]} {g[2]} -> {g[3]}: {g[0] / 1e6:.3f} ms"
                           for g in violations[:5]))
    smallest = min(g[0] for g in gaps) if gaps else None
    if cross:
        print(f"  gaps spanning a restart (excluded): {len(cross)}, smallest "
              f"{min(g[0] for g in cross) / 1e6:.3f} ms", flush=True)
    return smallest, len(gaps)


def clock_rate_difference(requests):
    """How much faster the wall clock ran than the monotonic one between the first and the last
    request (a fraction; None over less than a second)."""
    if not requests:
        return None
    first = min(requests, key=lambda r: r.ns)
    last = max(requests, key=lambda r: r.ns)
    if last.ns - first.ns < 10**9:
        return None
    return (last.wall_ns - first.wall_ns) / (last.ns - first.ns) - 1


def check_coverage(checks, requests, truth):
    """The crawl fetched exactly the truth's pages (seeds included), none of the disallowed or
    nofollow-only URLs, and nothing else. Returns the page request counts by URL."""
    expected = truth["page"] | truth["seed"]
    page_requests = [r for r in requests if is_page_request(r)]
    counts = collections.Counter(url_of(r) for r in page_requests)
    fetched = set(counts)
    missing = expected - fetched
    extra = fetched - expected
    checks.check(not missing, f"{len(missing)} of {len(expected)} pages never fetched, e.g. "
                              f"{sorted(missing)[:5]}")
    disallowed = fetched & truth["disallowed"]
    checks.check(not disallowed, f"{len(disallowed)} robots.txt-disallowed URLs fetched, e.g. "
                                 f"{sorted(disallowed)[:5]}")
    nofollow = fetched & truth["nofollow_only"]
    checks.check(not nofollow, f"{len(nofollow)} nofollow-only URLs fetched, e.g. "
                               f"{sorted(nofollow)[:5]}")
    other = extra - truth["disallowed"] - truth["nofollow_only"]
    checks.check(not other, f"{len(other)} URLs fetched that no correct crawl fetches, e.g. "
                            f"{sorted(other)[:5]}")
    bad_status = [r for r in page_requests if r.status != 200]
    checks.check(not bad_status, f"{len(bad_status)} page requests answered with a status other "
                                 f"than 200, e.g. {bad_status[:3]}")
    not_get = [r for r in requests if r.method != "GET"]
    checks.check(not not_get, f"{len(not_get)} requests not GET, e.g. {not_get[:3]}")
    coverage = 100.0 * len(expected & fetched) / len(expected) if expected else 0.0
    return counts, coverage


def check_crawl_log_pages(checks, log_lines, expected, what):
    """One `fetched` line with status 200 per page, for exactly the expected pages."""
    fetched = collections.Counter(l.url for l in log_lines
                                  if l.outcome == "fetched" and l.status == 200)
    repeated = {u: n for u, n in fetched.items() if n > 1}
    checks.check(not repeated, f"{what}: {len(repeated)} pages logged as fetched more than once, "
                               f"e.g. {sorted(repeated.items())[:5]}")
    missing = expected - set(fetched)
    extra = set(fetched) - expected
    checks.check(not missing and not extra,
                 f"{what}: fetched pages differ from the truth: {len(missing)} missing "
                 f"(e.g. {sorted(missing)[:3]}), {len(extra)} extra (e.g. {sorted(extra)[:3]})")


def check_robots_fetches(checks, requests, hosts, run_starts_ns=()):
    """robots.txt: once per host per crawler process (the robots cache lives in the process),
    and before any page of that host in that process."""
    first_page = {}
    robots = collections.Counter()
    for r in requests:
        key = (run_index(r.ns, run_starts_ns), r.host)
        if r.target == "/robots.txt":
            robots[key] += 1
            checks.check(key not in first_page,
                         f"robots.txt of {r.host} requested after a page of that host "
                         f"(run {key[0]})")
        elif key not in first_page:
            first_page[key] = r
    repeated = {k: n for k, n in robots.items() if n > 1}
    checks.check(not repeated, f"robots.txt requested more than once per host and process: "
                               f"{list(repeated.items())[:5]}")
    pages_without_robots = [k for k in first_page if k not in robots]
    checks.check(not pages_without_robots,
                 f"pages fetched without a robots.txt request first: {pages_without_robots[:5]}")
    hosts_seen = {h for _, h in robots}
    checks.check(len(hosts_seen) == hosts,
                 f"robots.txt requested for {len(hosts_seen)} hosts, expected {hosts}")
    return sum(robots.values())


def read_warc_records(path, names=("warc-type", "warc-target-uri")):
    """The header fields `names` (lower case; None when absent) of every record of a .warc.gz
    file, a tuple per record, read with Python's gzip (members concatenated) — a quick reader
    for the crawl scenarios; warcio_check.py is the independent one. Raises ValueError on a
    malformed or truncated record."""
    import gzip
    out = []
    with gzip.open(path, "rb") as f:
        while True:
            line = f.readline()
            if not line:
                return out
            if line != b"WARC/1.1\r\n":
                raise ValueError(f"{path}: expected WARC/1.1, got {line[:40]!r}")
            fields = {}
            while True:
                line = f.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode("utf-8", "replace").partition(":")
                fields[name.strip().lower()] = value.strip()
            length = int(fields["content-length"])
            block = f.read(length)
            if len(block) != length or f.read(4) != b"\r\n\r\n":
                raise ValueError(f"{path}: truncated record {fields.get('warc-record-id')}")
            out.append(tuple(fields.get(name) for name in names))


def archived_pages(checks, warc_dir, what):
    """Target URIs of response and revisit records in the finished (closed) WARC files, counted,
    and the names of files still open (`*.open`). A revisit that refers to a record not in those
    files is not a capture (its payload is nowhere) and fails the check."""
    import glob
    records = []
    for path in sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz"))):
        try:
            records += read_warc_records(path, ("warc-type", "warc-target-uri", "warc-record-id",
                                                "warc-refers-to"))
        except (ValueError, OSError, EOFError, KeyError) as e:
            checks.fail(f"{what}: unreadable WARC file: {e}")
    ids = {record_id for _, _, record_id, _ in records}
    captures = collections.Counter()
    dangling = []
    for kind, uri, _, refers_to in records:
        if kind == "revisit" and refers_to is not None and refers_to not in ids:
            dangling.append(uri)
        elif kind in ("response", "revisit"):
            captures[uri] += 1
    checks.check(not dangling, f"{what}: {len(dangling)} revisit records refer to records that "
                               f"are not in the archive, e.g. {sorted(dangling)[:3]}")
    still_open = sorted(os.path.basename(p) for p in glob.glob(os.path.join(warc_dir, "*.open")))
    return captures, still_open


class RedisServer:
    """A redis-server on a free loopback port, files in the work directory, no persistence: a
    restart after kill() comes back empty, as a Redis without persistence after a crash."""

    def __init__(self, workdir, name="redis"):
        self.dir = workdir(name)
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.proc = None

    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def start(self):
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
               "--save", "", "--appendonly", "no", "--logfile", os.path.join(self.dir, "log")]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

        def ready():
            if self.proc.poll() is not None:
                raise Fatal(f"redis-server exited with {self.proc.returncode} "
                            f"(see {self.dir}/log)")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        wait_until(ready, 30, f"redis-server on port {self.port}")
        return self

    def kill(self):
        """SIGKILL, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
