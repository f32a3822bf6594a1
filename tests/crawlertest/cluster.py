#!/usr/bin/env python3
"""A distributed crawler on loopback: N frontier partitions, N fetchers, dedup and the scheduler
(`crawlerd` roles), and a redis-server holding the fetchers' shared politeness timers, each a
process with its data under one directory and its log beside it.

    scripts/cluster.py up [--partitions N] [--dir DIR] [--build-dir build]
        starts the cluster, prints the crawlctl commands to use, runs until Ctrl-C (then drains
        every process with SIGTERM);
    scripts/cluster.py demo [--partitions 2] ...
        starts websim and the cluster, crawls websim as a collection through crawlctl, prints
        the collection's statistics and stops everything.

The tests (tests/e2e/distributed_test.py) and bench/distributed use the Cluster class
(`from crawlertest.cluster import Cluster`); `make cluster` runs it through scripts/cluster.py.
Python 3 standard library only. Every wait is bounded; every process is stopped in a `finally`.
Ports are picked free on 127.0.0.1 up front and kept, so a process killed and restarted comes
back on its own address.
"""

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time

from .ports import free_port

ROLES = ("frontier", "dedup", "scheduler", "fetcher")


class ClusterError(Exception):
    pass


class Process:
    """One crawlerd process; stderr appended to its log file."""

    def __init__(self, name, cmd, log_path):
        self.name = name
        self.cmd = cmd
        self.log_path = log_path
        self.proc = None

    def start(self):
        # A session of its own: Ctrl-C at the terminal reaches this script only, which then
        # drains each process with one SIGTERM (a second signal would cut the drain short).
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, start_new_session=True)
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def kill9(self):
        if self.running():
            self.proc.kill()
            self.proc.wait(timeout=30)

    def terminate(self, timeout_s=60):
        """SIGTERM and wait for the drain; SIGKILL if it takes longer. Returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        return self.proc.returncode


class Cluster:
    """The four roles on loopback, and a redis-server holding the fetchers' politeness timers
    (`redis=False`: each fetcher keeps its own in process). `fetcher_args` are added to every
    fetcher's command line (e.g. --connect-to for a test web, politeness keys)."""

    def __init__(self, crawlerd, crawlctl, directory, partitions=2, fetcher_args=(),
                 frontier_args=(), scheduler_args=(), redis=True, metrics=False):
        self.crawlerd = crawlerd
        self.crawlctl = crawlctl
        self.dir = os.path.abspath(directory)
        self.n = partitions
        self.fetcher_args = list(fetcher_args)
        self.frontier_args = list(frontier_args)
        self.scheduler_args = list(scheduler_args)
        os.makedirs(self.dir, exist_ok=True)
        # The admin token (crawlctl's) and the internal token every role's calls to the others
        # carry and every role requires (docs/services.md, "Who can call what").
        self.token_file = self.new_token("admin.token")
        self.internal_token_file = self.new_token("internal.token")
        self.ports = {("frontier", k): free_port() for k in range(self.n)}
        self.ports.update({("fetcher", k): free_port() for k in range(self.n)})
        self.ports[("dedup", 0)] = free_port()
        self.ports[("scheduler", 0)] = free_port()
        self.admin_port = free_port()
        self.redis = redis
        # Every role serves /metrics on a port of its choosing (metrics_address tells which).
        self.metrics = metrics
        if redis:
            self.ports[("redis", 0)] = free_port()
        self.procs = {}

    def new_token(self, name):
        path = os.path.join(self.dir, name)
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(secrets.token_hex(24) + "\n")
            os.chmod(path, 0o600)
        return path

    def address(self, role, k=0):
        return f"127.0.0.1:{self.ports[(role, k)]}"

    @property
    def admin(self):
        return f"127.0.0.1:{self.admin_port}"

    def frontier_flags(self):
        flags = []
        for k in range(self.n):
            flags += ["--frontier", self.address("frontier", k)]
        return flags

    def redis_url(self):
        return f"redis://{self.address('redis')}" if self.redis else None

    def command(self, role, k=0):
        if role == "redis":
            # No persistence: a restarted Redis is empty (the fetchers' politeness survives it).
            return [shutil.which("redis-server") or "/usr/bin/redis-server",
                    "--port", str(self.ports[("redis", 0)]), "--bind", "127.0.0.1",
                    "--dir", self.dir, "--save", "", "--appendonly", "no"]
        data = os.path.join(self.dir, f"{role}-{k}" if role in ("frontier", "fetcher") else role)
        common = [self.crawlerd, role, "--listen", self.address(role, k), "--data-dir", data,
                  "--drain-timeout", "10s", "--internal-token-file", self.internal_token_file]
        if self.metrics:
            common += ["--metrics-listen", "127.0.0.1:0"]
        if role == "frontier":
            return common + ["--partition", str(k), "--partitions", str(self.n),
                             *self.frontier_args]
        if role == "dedup":
            return common
        if role == "scheduler":
            return common + ["--admin-listen", self.admin, "--admin-token-file",
                             self.token_file, "--rpc-deadline", "3s", *self.frontier_flags(),
                             *self.scheduler_args]
        politeness = ["--politeness", self.redis_url()] if self.redis else []
        return common + ["--partition", str(k), *self.frontier_flags(),
                         "--scheduler", self.address("scheduler"),
                         "--dedup", self.address("dedup"), "--rpc-deadline", "3s",
                         *politeness, *self.fetcher_args]

    def metrics_address(self, role, k=0):
        """HOST:PORT of the role's /metrics, from its latest "<role>: metrics on" log line."""
        marker = f"{role}: metrics on http://"
        log = self.procs[(role, k)].log()
        at = log.rfind(marker)
        if at < 0:
            raise ClusterError(f"{role}-{k} logged no metrics address")
        return log[at + len(marker):].split("/", 1)[0]

    def log_path(self, role, k=0):
        return os.path.join(self.dir, f"{role}-{k}.log")

    def start_one(self, role, k=0, timeout_s=60, first=False):
        """Starts one process and waits until it serves. On its first start (`first`), a port
        taken meanwhile by someone else is replaced by another free one."""
        for attempt in range(5):
            try:
                return self._start_one(role, k, timeout_s)
            except ClusterError as e:
                if not (first and "Address already in use" in str(e)) or attempt == 4:
                    raise
                if role == "scheduler" and f":{self.admin_port}" in str(e):
                    self.admin_port = free_port()
                else:
                    self.ports[(role, k)] = free_port()
        raise ClusterError("unreachable")

    def _start_one(self, role, k, timeout_s):
        proc = Process(f"{role}-{k}", self.command(role, k), self.log_path(role, k))
        offset = len(proc.log())
        proc.start()
        self.procs[(role, k)] = proc
        want = ("Ready to accept connections" if role == "redis"
                else f"{role}: serving on {self.address(role, k)}")
        deadline = time.monotonic() + timeout_s
        while want not in proc.log()[offset:]:
            if not proc.running():
                raise ClusterError(f"{proc.name} exited with {proc.proc.returncode}:\n"
                                   f"{proc.log()[offset:][-3000:]}")
            if time.monotonic() > deadline:
                raise ClusterError(f"{proc.name} did not serve within {timeout_s} s")
            time.sleep(0.05)
        return proc

    def start(self):
        if self.redis:
            self.start_one("redis", first=True)
        for k in range(self.n):
            self.start_one("frontier", k, first=True)
        self.start_one("dedup", first=True)
        self.start_one("scheduler", first=True)
        for k in range(self.n):
            self.start_one("fetcher", k, first=True)
        return self

    def kill9(self, role, k=0):
        self.procs[(role, k)].kill9()

    def restart(self, role, k=0):
        return self.start_one(role, k)

    def restart_scheduler(self, scheduler_args):
        """Drains the scheduler (SIGTERM) and starts it again with `scheduler_args` instead of
        the ones it had (another --partitions starts a reshard). Returns the offset of its log
        from which the new process writes, and the old process's exit code."""
        self.scheduler_args = list(scheduler_args)
        offset = os.path.getsize(self.log_path("scheduler"))
        code = self.procs[("scheduler", 0)].terminate()
        self.restart("scheduler")
        return offset, code

    def log_line_since(self, role, offset, marker, k=0):
        """The first line of the role's log from `offset` on that holds `marker`, or None."""
        log = self.procs[(role, k)].log()[offset:]
        return next((line for line in log.splitlines() if marker in line), None)

    def stop(self):
        """Drains every process with SIGTERM (fetchers first, frontiers, then Redis, last); returns
        {name: exit code}."""
        codes = {}
        order = [("fetcher", k) for k in range(self.n)] + [("scheduler", 0), ("dedup", 0)] + \
                [("frontier", k) for k in range(self.n)] + [("redis", 0)]
        for key in order:
            proc = self.procs.get(key)
            if proc is not None:
                codes[proc.name] = proc.terminate()
        return codes

    def crawlctl_command(self, *args, json_out=False):
        cmd = [self.crawlctl, "--server", self.admin, "--token-file", self.token_file]
        if json_out:
            cmd.append("--json")
        return cmd + list(args)

    def ctl(self, *args, json_out=False, stdin=None, timeout_s=120, check=True):
        out = subprocess.run(self.crawlctl_command(*args, json_out=json_out), input=stdin,
                             capture_output=True, text=True, timeout=timeout_s)
        if check and out.returncode != 0:
            raise ClusterError(f"crawlctl {' '.join(args)} exited with {out.returncode}: "
                               f"{out.stderr.strip()}")
        return out


def build_paths(build_dir):
    crawlerd = os.path.join(build_dir, "tools", "crawlerd", "crawlerd")
    crawlctl = os.path.join(build_dir, "tools", "crawlctl", "crawlctl")
    for path in (crawlerd, crawlctl):
        if not os.access(path, os.X_OK):
            raise ClusterError(f"{path} not found: build first (make build)")
    return crawlerd, crawlctl


def cmd_up(args):
    crawlerd, crawlctl = build_paths(args.build_dir)
    cluster = Cluster(crawlerd, crawlctl, args.dir, args.partitions,
                      fetcher_args=["--allow-network", "127.0.0.0/8"] if args.loopback else [])
    try:
        cluster.start()
        ctl = " ".join(cluster.crawlctl_command())
        print(f"cluster: {args.partitions} partition(s) up, data and logs in {cluster.dir}")
        for (role, k), port in sorted(cluster.ports.items()):
            print(f"  {role}-{k}: 127.0.0.1:{port}")
        print(f"  admin API: {cluster.admin} (token in {cluster.token_file})")
        print(f"  internal calls carry the token in {cluster.internal_token_file}")
        print("\nUse it with crawlctl, e.g.:")
        print(f"  {ctl} collections create -f coll.yaml")
        print(f"  {ctl} seeds add NAME seeds.txt")
        print(f"  {ctl} stats NAME --watch")
        print(f"  {ctl} collections list")
        print("\nCtrl-C stops the cluster (each process drains).", flush=True)
        while all(p.running() for p in cluster.procs.values()):
            time.sleep(1)
        dead = [p.name for p in cluster.procs.values() if not p.running()]
        print(f"cluster: {', '.join(dead)} exited; see {cluster.dir}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        codes = cluster.stop()
        print(f"cluster: stopped ({', '.join(f'{n}={c}' for n, c in codes.items())})")


def cmd_demo(args):
    crawlerd, crawlctl = build_paths(args.build_dir)
    websim = os.path.join(args.build_dir, "tools", "websim", "websim")
    # A demo starts afresh: a cluster left by an earlier demo already holds the collection.
    shutil.rmtree(os.path.join(args.dir, "cluster"), ignore_errors=True)
    os.makedirs(args.dir, exist_ok=True)
    sim_dir = os.path.join(os.path.abspath(args.dir), "websim")
    os.makedirs(sim_dir, exist_ok=True)
    port_file = os.path.join(sim_dir, "port")
    seeds_file = os.path.join(sim_dir, "seeds.txt")
    if os.path.exists(port_file):
        os.remove(port_file)
    sim = subprocess.Popen([websim, "--hosts", str(args.hosts), "--pages", str(args.pages),
                            "--seed", "7", "--port", "0", "--port-file", port_file,
                            "--log", os.path.join(sim_dir, "requests.log"),
                            "--seeds-file", seeds_file, "--max-seconds", "900"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=open(os.path.join(sim_dir, "websim.stderr"), "wb"))
    cluster = None
    try:
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and open(port_file).read().strip().isdigit()):
            if sim.poll() is not None or time.monotonic() > deadline:
                raise ClusterError("websim did not start")
            time.sleep(0.05)
        sim_port = int(open(port_file).read().strip())
        cluster = Cluster(crawlerd, crawlctl, os.path.join(args.dir, "cluster"), args.partitions,
                          fetcher_args=["--allow-network", "127.0.0.0/8", "--connect-to",
                                        f"127.0.0.1:{sim_port}", "--min-delay", "50ms",
                                        "--delay-factor", "0", "--partition-header"])
        cluster.start()
        print(f"demo: websim ({args.hosts} hosts x {args.pages} pages) on 127.0.0.1:{sim_port}, "
              f"cluster of {args.partitions} partition(s) in {cluster.dir}", flush=True)
        coll = os.path.join(cluster.dir, "demo.yaml")
        with open(coll, "w") as f:
            # The fetchers' politeness keys set the per-host delay of the distributed crawl; the
            # collection says the same, for the reader of `collections get`.
            f.write("name: demo\nmin_delay: 50ms\ndelay_factor: 0\nseeds:\n")
            for seed in open(seeds_file).read().split():
                f.write(f"  - {seed}\n")
        print("$ crawlctl collections create -f demo.yaml", flush=True)
        print(cluster.ctl("collections", "create", "-f", coll).stdout, flush=True)
        start = time.monotonic()
        while True:
            stats = json.loads(cluster.ctl("stats", "demo", json_out=True).stdout)
            if stats.get("exhausted"):
                break
            if time.monotonic() - start > args.timeout:
                raise ClusterError(f"demo crawl not done within {args.timeout} s")
            print(f"  {time.monotonic() - start:5.1f} s: {stats.get('pages', 0)} pages, "
                  f"{stats.get('queued_urls', 0)} queued", flush=True)
            time.sleep(2)
        time.sleep(3)  # the fetchers' last reports
        print(f"$ crawlctl stats demo   (crawled in {time.monotonic() - start:.1f} s)")
        print(cluster.ctl("stats", "demo").stdout, flush=True)
        return 0
    finally:
        if cluster is not None:
            cluster.stop()
        sim.send_signal(signal.SIGTERM)
        try:
            sim.wait(timeout=30)
        except subprocess.TimeoutExpired:
            sim.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("up", "demo"):
        p = sub.add_parser(name)
        p.add_argument("--partitions", type=int, default=2)
        p.add_argument("--dir", default="cluster-data" if name == "up" else "cluster-demo")
        p.add_argument("--build-dir", default="build")
        if name == "up":
            p.add_argument("--loopback", action="store_true",
                           help="let fetchers reach 127.0.0.0/8 (a test web on this machine)")
        else:
            p.add_argument("--hosts", type=int, default=20)
            p.add_argument("--pages", type=int, default=20)
            p.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    try:
        return cmd_up(args) if args.command == "up" else cmd_demo(args)
    except ClusterError as e:
        print(f"cluster: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
