#!/usr/bin/python3
"""The services probed the way a hostile client or an unlucky operator would, each scenario a
finding that once held and must not again (docs/services.md, "Who can call what" and "When
something fails"). Loopback only; every wait bounded; every process stopped in a `finally`.

Scenarios:
  disk_full    a frontier on a small file system that fills up (a tmpfs in a mount namespace of
               the test's own, as root): its writes fail while the disk is full; once space is
               freed it takes URLs, leases and completions again within seconds, without a
               restart, and its log says so in a few lines, not several a second.

Python 3 with Debian's python3-grpcio and python3-protobuf (/usr/bin/python3): the stubs are
generated from proto/ at test time (grpc_stubs.py).
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

import grpc_stubs  # noqa: E402
from e2e_support import Fatal, run_scenario, wait_until  # noqa: E402

SKIP = 77


class Role:
    """One crawlerd process, its stderr in a file; `port` from its "serving on" line."""

    def __init__(self, crawlerd, role, args, log_path):
        self.role = role
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen([crawlerd, role, *args], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, start_new_session=True)
        pattern = re.compile(rf"{role}: serving on [^\s]+:(\d+)")

        def serving():
            if self.proc.poll() is not None:
                raise Fatal(f"{role} exited with {self.proc.returncode}: {self.log()[-2000:]}")
            m = pattern.search(self.log())
            return int(m.group(1)) if m else None
        self.port = wait_until(serving, 60, f"{role} to serve")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        return self.proc.returncode


def in_mount_namespace():
    """Re-executes this script in a mount namespace of its own (as root) unless it runs in one;
    returns False where that is not possible (the scenario is then skipped)."""
    if os.environ.get("CRAWLER_HARDENING_NS") == "1":
        return True
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"],
                                           capture_output=True).returncode != 0:
        return False
    os.environ["CRAWLER_HARDENING_NS"] = "1"
    os.execvp("unshare", ["unshare", "-m", "--propagation", "private", sys.executable,
                          *sys.argv])
    return False  # not reached


def frontier_urls(v1, hosts, first, count, pad=150):
    urls = []
    for i in range(first, first + count):
        host = f"h{i % hosts}.test"
        urls.append(v1.frontier_pb2.UrlToAdd(
            canonical_url=f"http://{host}/{'p' * pad}/{i}", host_key=host, depth=1))
    return urls


def scenario_disk_full(args, checks, work):
    import grpc
    small = work("small")
    os.makedirs(small)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", small], check=True)
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    frontier = None
    filler = os.path.join(small, "filler")
    try:
        frontier = Role(args.crawlerd, "frontier",
                        ["--listen", "127.0.0.1:0", "--data-dir", os.path.join(small, "frontier"),
                         "--partition", "0", "--partitions", "1", "--drain-timeout", "5s"],
                        work("frontier.log"))
        channel = grpc.insecure_channel(f"127.0.0.1:{frontier.port}")
        stub = v1.frontier_pb2_grpc.FrontierStub(channel)
        pb = v1.frontier_pb2
        stub.OpenCollection(pb.OpenCollectionRequest(
            collection=pb.FrontierCollection(name="c", max_in_flight_per_host=4),
            partition_count=1), timeout=20)
        counter = [0]

        def round_trip():
            """AddUrls of new URLs, a Lease, and the completion of what it leased."""
            stub.AddUrls(pb.AddUrlsRequest(collection="c", urls=frontier_urls(
                v1, 200, counter[0], 256)), timeout=10)
            counter[0] += 256
            leased = stub.Lease(pb.LeaseRequest(collection="c", max_urls=64, max_per_host=1),
                                timeout=10)
            outcomes = [pb.FetchOutcome(lease_id=t.lease_id, outcome=1, http_status=200)
                        for t in leased.tasks]
            if outcomes:
                stub.Complete(pb.CompleteRequest(collection="c", outcomes=outcomes), timeout=10)
            return len(outcomes)

        for _ in range(5):
            round_trip()
        # Fill the file system, then go on until the frontier's writes fail.
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
            except OSError:
                pass
        failures = 0
        deadline = time.monotonic() + 30
        while failures < 3 and time.monotonic() < deadline:
            try:
                round_trip()
            except grpc.RpcError:
                failures += 1
        if not checks.check(failures >= 3, "the frontier's writes did not fail on a full disk"):
            return
        full_lines = frontier.log().count("\n")
        time.sleep(3)  # the full disk lasts a while: the reaper's rounds meanwhile
        os.remove(filler)
        freed = time.monotonic()

        def recovered():
            try:
                return round_trip() > 0
            except grpc.RpcError:
                return False
        ok = True
        try:
            wait_until(recovered, 20, "the frontier to take writes again", poll_s=0.25)
        except Fatal:
            ok = False
        took = time.monotonic() - freed
        checks.check(ok, "the frontier did not recover within 20 s of space being freed")
        stats = stub.GetStats(pb.GetStatsRequest(collection="c"), timeout=10).stats
        log_lines = frontier.log().count("\n") - full_lines
        checks.check(log_lines <= 20,
                     f"{log_lines} log lines during the full disk and the recovery (at most 20)")
        print(f"disk_full: writes failed {failures} times; writes again {took:.1f} s after space "
              f"was freed; {log_lines} log lines meanwhile; {stats.pages_completed} pages "
              f"completed, {stats.urls_added} URLs added", flush=True)
    finally:
        if frontier is not None:
            frontier.stop()
        if os.path.exists(filler):
            os.remove(filler)
        subprocess.run(["umount", "-l", small], check=False)


SCENARIOS = {"disk_full": scenario_disk_full}
NEEDS_MOUNT = {"disk_full"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawlerd", required=True)
    parser.add_argument("--crawlctl")
    parser.add_argument("--websim")
    parser.add_argument("--crawler")
    parser.add_argument("--protoc", default="/usr/bin/protoc")
    parser.add_argument("--plugin", default="/usr/bin/grpc_python_plugin")
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    if args.scenario in NEEDS_MOUNT and not in_mount_namespace():
        print(f"SKIP: {args.scenario} needs root and a mount namespace (unshare -m)")
        return SKIP
    return run_scenario(args, SCENARIOS, "hardening", "hard", errors=(Fatal,))


if __name__ == "__main__":
    sys.exit(main())
