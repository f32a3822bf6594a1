#!/usr/bin/python3
"""The services probed the way a hostile client or an unlucky operator would, each scenario a
finding that once held and must not again (docs/services.md, "Who can call what" and "When
something fails"). Loopback only; every wait bounded; every process stopped in a `finally`.

Scenarios:
  disk_full    a frontier on a small file system that fills up (a tmpfs in a mount namespace of
               the test's own, as root): its writes fail while the disk is full; once space is
               freed it takes URLs, leases and completions again within seconds, without a
               restart, and its log says so in a few lines, not several a second.

  internal_auth  the distributed services as `make cluster` runs them (scripts/cluster.py: an
               internal token): a client without it is refused by every internal service
               (UNAUTHENTICATED, counted in crawler_<service>_rpc_errors_total) -- it can read no
               definition, inject no URL, drop no partition, list no fetcher's archive files --
               and the collection is intact; the internal ports default to loopback.
  big_messages   48 CreateCollection calls of 63 MB from 16 threads, without a token: every one
               refused, and the scheduler's peak memory stays far below the chart's 512 MiB;
               the same with AddUrls at a frontier's port (its limit: 2 GiB).
  refusals_log   3,000 Admin calls with a wrong token: refused, and logged in a few lines.
  big_definitions  four collections of 9,000 seeds x 2 KB: `crawlctl collections list` works,
               the fetchers keep reaching the scheduler and a new collection is crawled whole.
  recreate     a collection deleted at 30% and created again at once under its name, the
               fetchers held still (SIGSTOP) meanwhile: the new one fetches every page once (none
               twice since it was created) and its statistics agree (pages = fetched = the truth).
  small        crawlctl's refusals: a 3 MB pattern that does not compile, a collection whose
               every seed is out of scope, a file of two YAML documents (each exit 2 with a short
               message); a rejected 70 KB seed listed abbreviated with its reason.
  roles        mutual TLS between a frontier, the scheduler and a fetcher (certificates made
               with openssl): the scheduler reaches the frontier; a fetcher's certificate may read
               statistics but not drop a collection, nor list another fetcher's archive files
               (PERMISSION_DENIED), which the scheduler's may; no certificate, or one of another
               CA, does not get past the handshake.

Python 3 with Debian's python3-grpcio and python3-protobuf (/usr/bin/python3): the stubs are
generated from proto/ at test time (crawlertest.grpc_stubs).
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True

from crawlertest import grpc_stubs  # noqa: E402
from crawlertest.e2e import Fatal, run_scenario, wait_until  # noqa: E402

SKIP = 77


def start_role(crawlerd, role, args, log_path):
    """One crawlerd process (crawlertest.cluster.Process), its stderr in a file; returns it and
    the port of its "serving on" line."""
    from crawlertest.cluster import Process
    proc = Process(role, [crawlerd, role, *args], log_path).start()
    pattern = re.compile(rf"{role}: serving on [^\s]+:(\d+)")

    def serving():
        if not proc.running():
            raise Fatal(f"{role} exited with {proc.proc.returncode}: {proc.log()[-2000:]}")
        m = pattern.search(proc.log())
        return int(m.group(1)) if m else None
    return proc, wait_until(serving, 60, f"{role} to serve")


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
        frontier, port = start_role(
            args.crawlerd, "frontier",
            ["--listen", "127.0.0.1:0", "--data-dir", os.path.join(small, "frontier"),
             "--partition", "0", "--partitions", "1", "--drain-timeout", "5s"],
            work("frontier.log"))
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
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
            frontier.terminate()
        if os.path.exists(filler):
            os.remove(filler)
        subprocess.run(["umount", "-l", small], check=False)


def write_collection(path, name, seeds, extra=()):
    with open(path, "w") as f:
        f.write(f"name: {name}\n")
        for line in extra:
            f.write(line + "\n")
        f.write("seeds:\n" + "".join(f"  - {u}\n" for u in seeds))


def rpc_code(call):
    """The gRPC status code of `call()` (OK when it returns)."""
    import grpc
    try:
        call()
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()


def metric_sum(address, name, labels):
    """The sum of the samples of `name` whose labels include `labels` at http://address/metrics."""
    import urllib.request
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as r:
        text = r.read().decode()
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def scenario_internal_auth(args, checks, work):
    import grpc
    from crawlertest.cluster import Cluster
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 2, metrics=True)
    try:
        cluster.start()
        write_collection(work("c.yaml"), "web", [f"http://h{i}.test/" for i in range(20)],
                         ["allow_host_suffixes: [test]"])
        cluster.ctl("collections", "create", "-f", work("c.yaml"))

        def channel(role, k=0):
            return grpc.insecure_channel(cluster.address(role, k))
        internal = v1.scheduler_pb2_grpc.SchedulerInternalStub(channel("scheduler"))
        frontier0 = v1.frontier_pb2_grpc.FrontierStub(channel("frontier", 0))
        frontier1 = v1.frontier_pb2_grpc.FrontierStub(channel("frontier", 1))
        dedup = v1.dedup_pb2_grpc.DedupStub(channel("dedup"))
        archive = v1.archive_pb2_grpc.ArchiveFilesStub(channel("fetcher", 0))
        pb = v1.frontier_pb2
        attempts = {
            "ReportFetcherStats (every definition)": lambda: internal.ReportFetcherStats(
                v1.scheduler_pb2.ReportFetcherStatsRequest(partition=0, incarnation="evil"),
                timeout=10),
            "AddUrls (an URL out of scope)": lambda: frontier0.AddUrls(pb.AddUrlsRequest(
                collection="web", urls=[pb.UrlToAdd(canonical_url="http://evil.example/",
                                                    host_key="evil.example")]), timeout=10),
            "DropCollection": lambda: frontier1.DropCollection(
                pb.DropCollectionRequest(name="web"), timeout=10),
            "Lease": lambda: frontier0.Lease(
                pb.LeaseRequest(collection="web", max_urls=10, max_per_host=1), timeout=10),
            "MarkLinksSeen": lambda: dedup.MarkLinksSeen(
                v1.dedup_pb2.MarkLinksSeenRequest(collection="web", keys=["x"]), timeout=10),
            "ListArchiveFiles (a fetcher's WARC files)": lambda: archive.ListArchiveFiles(
                v1.archive_pb2.ListArchiveFilesRequest(collection="web"), timeout=10),
        }
        refused_here = 0
        for what, call in attempts.items():
            code = rpc_code(call)
            refused_here += code == grpc.StatusCode.UNAUTHENTICATED
            checks.check(code == grpc.StatusCode.UNAUTHENTICATED,
                         f"{what} without the internal token: {code.name}, not UNAUTHENTICATED")
        token = open(cluster.internal_token_file).read().strip()
        code = rpc_code(lambda: frontier0.GetStats(
            pb.GetStatsRequest(collection="web"), timeout=10,
            metadata=[("authorization", f"Bearer {token}")]))
        checks.check(code == grpc.StatusCode.OK, f"GetStats with the internal token: {code.name}")
        code = rpc_code(lambda: frontier0.GetStats(
            pb.GetStatsRequest(collection="web"), timeout=10,
            metadata=[("authorization", f"Bearer {token[:-1]}x")]))
        checks.check(code == grpc.StatusCode.UNAUTHENTICATED,
                     f"GetStats with a wrong token: {code.name}")
        refused = metric_sum(cluster.metrics_address("frontier", 0),
                             "crawler_frontier_rpc_errors_total", {"code": "UNAUTHENTICATED"})
        checks.check(refused >= 2, f"frontier-0 counted {refused:.0f} refused calls, not 2")
        stats = json.loads(cluster.ctl("stats", "web", json_out=True).stdout)
        reporting = int(stats.get("partitionsReporting", stats.get("partitions_reporting", 0)))
        checks.check(reporting == 2, f"a partition lost the collection: {stats}")
        seen = int(stats.get("seenUrls", stats.get("seen_urls", 0)))
        checks.check(seen == 20, f"the partitions hold {seen} URLs, not the 20 seeds")
        for role, port in (("frontier", 50050), ("dedup", 50051), ("fetcher", 50053),
                           ("scheduler", 50051)):
            out = subprocess.run([args.crawlerd, role, "--help"], capture_output=True, text=True)
            checks.check(f"127.0.0.1:{port}" in out.stdout and "0.0.0.0" not in out.stdout,
                         f"crawlerd {role}'s internal port does not default to loopback")
        print(f"internal_auth: {refused_here} of {len(attempts)} calls without the internal token "
              f"refused; "
              f"frontier-0 counted {refused:.0f}; {reporting} of 2 partitions hold the "
              f"collection ({seen} URLs)", flush=True)
    finally:
        codes = cluster.stop()
        checks.check(all(c == 0 for c in codes.values()), f"exit codes: {codes}")


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def scenario_big_messages(args, checks, work):
    import concurrent.futures
    import grpc
    from crawlertest.cluster import Cluster
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 1, redis=False)
    try:
        cluster.start_one("frontier", 0, first=True)
        cluster.start_one("scheduler", first=True)
        pid = cluster.procs[("scheduler", 0)].proc.pid
        before = peak_rss_mb(pid)
        seeds = [f"http://h{i}.example/{'x' * 2000}" for i in range(31000)]  # ~63 MB
        request = v1.admin_pb2.CreateCollectionRequest(
            collection=v1.admin_pb2.Collection(name="big", seeds=seeds))
        size_mb = request.ByteSize() / 1e6
        options = [("grpc.max_send_message_length", 128 << 20)]
        codes = []

        def attack(_):
            with grpc.insecure_channel(cluster.admin, options=options) as ch:
                stub = v1.admin_pb2_grpc.AdminStub(ch)
                out = []
                for _ in range(3):
                    out.append(rpc_code(lambda: stub.CreateCollection(request, timeout=60)))
                return out
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            for result in pool.map(attack, range(16)):
                codes += result
        peak = peak_rss_mb(pid)
        accepted = [c for c in codes if c == grpc.StatusCode.OK]
        checks.check(not accepted, f"{len(accepted)} unauthenticated CreateCollection accepted")
        checks.check(peak < 200, f"the scheduler's peak RSS went from {before:.0f} MB to "
                                 f"{peak:.0f} MB (at most 200)")
        # The same at a frontier's port, with AddUrls of 63 MB.
        fpid = cluster.procs[("frontier", 0)].proc.pid
        fbefore = peak_rss_mb(fpid)
        pb = v1.frontier_pb2
        adds = pb.AddUrlsRequest(collection="big", urls=[
            pb.UrlToAdd(canonical_url=f"http://h{i}.example/{'x' * 2000}", host_key=f"h{i}.example")
            for i in range(31000)])
        fcodes = []

        def attack_frontier(_):
            with grpc.insecure_channel(cluster.address("frontier", 0), options=options) as ch:
                stub = v1.frontier_pb2_grpc.FrontierStub(ch)
                return [rpc_code(lambda: stub.AddUrls(adds, timeout=60)) for _ in range(3)]
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            for result in pool.map(attack_frontier, range(16)):
                fcodes += result
        fpeak = peak_rss_mb(fpid)
        checks.check(grpc.StatusCode.OK not in fcodes, "an unauthenticated AddUrls was accepted")
        checks.check(fpeak < 400, f"the frontier's peak RSS went from {fbefore:.0f} MB to "
                                  f"{fpeak:.0f} MB (at most 400)")
        print(f"big_messages: {len(codes)} CreateCollection calls of {size_mb:.0f} MB from 16 "
              f"threads, refused ({sorted(set(c.name for c in codes))}); scheduler peak RSS "
              f"{before:.0f} -> {peak:.0f} MB; the same with AddUrls at a frontier "
              f"({sorted(set(c.name for c in fcodes))}): {fbefore:.0f} -> {fpeak:.0f} MB",
              flush=True)
    finally:
        stopped = cluster.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")


def scenario_refusals_log(args, checks, work):
    import concurrent.futures
    import grpc
    from crawlertest.cluster import Cluster
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 1, redis=False)
    try:
        cluster.start_one("frontier", 0, first=True)
        cluster.start_one("scheduler", first=True)
        log = cluster.procs[("scheduler", 0)]
        lines_before = log.log().count("refused")
        bad = [("authorization", "Bearer not-the-token-0123456789")]
        t0 = time.monotonic()

        def hammer(_):
            with grpc.insecure_channel(cluster.admin) as ch:
                stub = v1.admin_pb2_grpc.AdminStub(ch)
                return [rpc_code(lambda: stub.ListCollections(
                    v1.admin_pb2.ListCollectionsRequest(), metadata=bad, timeout=10))
                    for _ in range(375)]
        codes = []
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for result in pool.map(hammer, range(8)):
                codes += result
        took = time.monotonic() - t0
        refused = sum(1 for c in codes if c == grpc.StatusCode.UNAUTHENTICATED)
        lines = log.log().count("refused") - lines_before
        checks.check(refused == len(codes), f"{len(codes) - refused} calls not refused")
        checks.check(lines <= took + 2, f"{lines} log lines for {refused} refusals in "
                                        f"{took:.1f} s (at most one a second)")
        print(f"refusals_log: {refused} calls with a wrong token in {took:.1f} s, {lines} log "
              f"lines", flush=True)
    finally:
        stopped = cluster.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def role_certs(d):
    """A CA, and a certificate signed by it for each role (its common name) naming 127.0.0.1;
    and a certificate of another CA. Returns {name: (cert, key)} and the CA's path."""
    os.makedirs(d, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=test internal CA", cwd=d)
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:crawler-internal\n")
    certs = {}
    for role in ("frontier", "scheduler", "fetcher"):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{role}.key", "-out",
                f"{role}.csr", "-subj", f"/CN={role}", cwd=d)
        openssl("x509", "-req", "-in", f"{role}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{role}.pem", "-days", "2", "-extfile", "san.ext",
                cwd=d)
        certs[role] = (os.path.join(d, f"{role}.pem"), os.path.join(d, f"{role}.key"))
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "stranger.key", "-out",
            "stranger.pem", "-days", "2", "-subj", "/CN=fetcher", cwd=d)
    certs["stranger"] = (os.path.join(d, "stranger.pem"), os.path.join(d, "stranger.key"))
    return certs, os.path.join(d, "ca.pem")


def scenario_roles(args, checks, work):
    import grpc
    from crawlertest.cluster import Cluster
    v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
    certs, ca = role_certs(work("certs"))
    server = lambda role: ["--tls-cert-file", certs[role][0], "--tls-key-file", certs[role][1],
                           "--tls-client-ca-file", ca]
    peer = lambda role: ["--peer-tls-ca-file", ca, "--peer-tls-cert-file", certs[role][0],
                         "--peer-tls-key-file", certs[role][1]]
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 1, redis=False,
                      frontier_args=server("frontier"),
                      scheduler_args=server("scheduler") + peer("scheduler"),
                      fetcher_args=server("fetcher") + peer("fetcher"))
    try:
        cluster.start_one("frontier", 0, first=True)
        cluster.start_one("scheduler", first=True)
        cluster.start_one("fetcher", 0, first=True)
        write_collection(work("c.yaml"), "web", ["http://a.test/"])
        cluster.ctl("collections", "create", "-f", work("c.yaml"))
        stats = json.loads(cluster.ctl("stats", "web", json_out=True).stdout)
        checks.check(int(stats.get("partitions_reporting", 0)) == 1,
                     f"the scheduler did not reach the frontier over mutual TLS: {stats}")
        token = [("authorization", f"Bearer {open(cluster.internal_token_file).read().strip()}")]
        root = open(ca, "rb").read()
        options = [("grpc.ssl_target_name_override", "crawler-internal")]

        def channel(role, server_role):
            creds = grpc.ssl_channel_credentials(root) if role is None else \
                grpc.ssl_channel_credentials(root, open(certs[role][1], "rb").read(),
                                             open(certs[role][0], "rb").read())
            return grpc.secure_channel(cluster.address(server_role, 0), creds, options=options)
        frontier = lambda role: v1.frontier_pb2_grpc.FrontierStub(channel(role, "frontier"))
        archive = lambda role: v1.archive_pb2_grpc.ArchiveFilesStub(channel(role, "fetcher"))
        pb = v1.frontier_pb2
        drop = lambda role: frontier(role).DropCollection(pb.DropCollectionRequest(name="web"),
                                                          metadata=token, timeout=10)
        stats_call = lambda role: frontier(role).GetStats(pb.GetStatsRequest(collection="web"),
                                                          metadata=token, timeout=10)
        # The fetcher's archive files go to the scheduler (crawlctl archive pull), never to
        # another fetcher.
        files = lambda role: archive(role).ListArchiveFiles(
            v1.archive_pb2.ListArchiveFilesRequest(collection="web"), metadata=token, timeout=10)
        cases = [("a fetcher's DropCollection", drop, "fetcher", grpc.StatusCode.PERMISSION_DENIED),
                 ("a fetcher's GetStats", stats_call, "fetcher", grpc.StatusCode.OK),
                 ("GetStats without a client certificate", stats_call, None,
                  grpc.StatusCode.UNAVAILABLE),
                 ("GetStats with another CA's certificate", stats_call, "stranger",
                  grpc.StatusCode.UNAVAILABLE),
                 ("a fetcher's ListArchiveFiles", files, "fetcher",
                  grpc.StatusCode.PERMISSION_DENIED),
                 ("the scheduler's ListArchiveFiles", files, "scheduler", grpc.StatusCode.OK)]
        for what, call, role, want in cases:
            code = rpc_code(lambda: call(role))
            checks.check(code == want, f"{what}: {code.name}, expected {want.name}")
        stats = json.loads(cluster.ctl("stats", "web", json_out=True).stdout)
        checks.check(int(stats.get("seen_urls", stats.get("seenUrls", 0))) == 1,
                     f"the collection was not kept: {stats}")
        print(f"roles: {len(cases)} calls over mutual TLS answered as their role allows "
              f"({', '.join(f'{w}: {c.name}' for w, _, _, c in cases)})", flush=True)
    finally:
        stopped = cluster.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")


def sim_fetcher_args(port):
    return ["--allow-network", "127.0.0.0/8", "--connect-to", f"127.0.0.1:{port}",
            "--min-delay", "50ms", "--delay-factor", "0", "--partition-header",
            "--report-interval", "1s", "--timeout", "10s"]


def stats_of(cluster, name):
    out = cluster.ctl("stats", name, json_out=True, check=False, timeout_s=30)
    return json.loads(out.stdout) if out.returncode == 0 else None


def field(d, name):
    parts = name.split("_")
    return d.get(name, d.get(parts[0] + "".join(p.title() for p in parts[1:]), 0))


def wait_exhausted(cluster, name, timeout_s=300):
    def done():
        st = stats_of(cluster, name)
        return st if st and field(st, "exhausted") is True else None
    st = wait_until(done, timeout_s, f"collection {name} to finish", poll_s=1)
    time.sleep(2.5)  # the fetchers' last reports
    return stats_of(cluster, name) or st


def scenario_big_definitions(args, checks, work):
    from crawlertest.cluster import Cluster
    from crawlertest.e2e import Websim
    sim = Websim(args.websim, work, hosts=5, pages=10, seed=31).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 2,
                      fetcher_args=sim_fetcher_args(sim.port))
    try:
        cluster.start()
        # Four collections of 9,000 seeds of 2 KB (18 MB of definition each), paused; the long
        # seeds are out of scope (excluded), so nothing of them is crawled.
        for c in range(4):
            seeds = ["http://big.test/"] + [f"http://big.test/{'x' * 2000}/{i}"
                                            for i in range(9000)]
            write_collection(work(f"big{c}.yaml"), f"big{c}", seeds,
                             ["allow_host_suffixes: [test]", "exclude: ['/xxxxxxxxxx']"])
            out = cluster.ctl("collections", "create", "-f", work(f"big{c}.yaml"), check=False,
                              timeout_s=300)
            checks.check(out.returncode == 0, f"creating big{c}: {out.stderr.strip()[-500:]}")
            cluster.ctl("collections", "pause", f"big{c}", check=False)
        out = cluster.ctl("collections", "list", check=False, timeout_s=60)
        listed = out.returncode
        checks.check(out.returncode == 0, f"collections list exited {out.returncode}: "
                                          f"{out.stderr.strip()[-500:]}")
        write_collection(work("web.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("web.yaml"))
        truth, _ = sim.truth()
        expected = len(truth["page"] | truth["seed"])
        pages = 0
        try:
            final = wait_exhausted(cluster, "web", timeout_s=120)
            pages = int(field(final, "pages"))
        except Fatal as e:
            checks.fail(str(e))
        checks.check(pages == expected, f"the new collection has {pages} pages, not {expected}")
        unreachable = sum(cluster.procs[("fetcher", k)].log().count("scheduler unreachable")
                          for k in range(2))
        checks.check(unreachable == 0, f"fetchers logged 'scheduler unreachable' {unreachable} "
                                       f"times")
        print(f"big_definitions: 4 collections of 9,000 seeds x 2 KB, `collections list` exit "
              f"{listed}; a new collection "
              f"crawled {pages} of {expected} pages; fetchers lost the scheduler {unreachable} "
              f"times", flush=True)
    finally:
        stopped = cluster.stop()
        sim.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")


def scenario_recreate(args, checks, work):
    from crawlertest.cluster import Cluster
    from crawlertest.e2e import Websim, check_coverage, monotonic_ns, url_of, is_page_request
    sim = Websim(args.websim, work, hosts=30, pages=40, seed=32).start()
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 2,
                      fetcher_args=sim_fetcher_args(sim.port))
    try:
        cluster.start()
        write_collection(work("web.yaml"), "web", sim.seeds())
        cluster.ctl("collections", "create", "-f", work("web.yaml"))
        truth, _ = sim.truth()
        expected = truth["page"] | truth["seed"]
        wait_until(lambda: sum(1 for r in sim.requests() if is_page_request(r)) >=
                   0.3 * len(expected), 300, "30% of the pages")
        # Delete and create again as a script would, back to back through the Admin API; the
        # fetchers are held still meanwhile, for a second at least (a long pause: a fetcher
        # that resumes after one confirms its collection with its frontier before it starts a
        # request), so their next call to their frontier finds the new collection of the name,
        # not none.
        import grpc
        fetchers = [cluster.procs[("fetcher", k)].proc for k in range(2)]
        for p in fetchers:
            os.kill(p.pid, signal.SIGSTOP)
        stopped_ns = monotonic_ns()
        v1 = grpc_stubs.generate(work("gen"), args.protoc, args.plugin)
        auth = [("authorization", f"Bearer {open(cluster.token_file).read().strip()}")]
        info = json.loads(cluster.ctl("collections", "get", "web", json_out=True).stdout)
        definition = v1.admin_pb2.Collection(name="web", seeds=info["collection"]["seeds"])
        with grpc.insecure_channel(cluster.admin) as channel:
            admin = v1.admin_pb2_grpc.AdminStub(channel)
            admin.DeleteCollection(v1.admin_pb2.DeleteCollectionRequest(name="web"),
                                   metadata=auth, timeout=30)
            deleted_ns = monotonic_ns()

            def created():
                code = rpc_code(lambda: admin.CreateCollection(
                    v1.admin_pb2.CreateCollectionRequest(collection=definition), metadata=auth,
                    timeout=30))
                return code == grpc.StatusCode.OK
            try:
                wait_until(created, 60, "the name to be free again", poll_s=0.001)
                created_ns = monotonic_ns()
                time.sleep(max(0.0, 1.0 - (created_ns - stopped_ns) / 1e9))
            finally:
                for p in fetchers:
                    os.kill(p.pid, signal.SIGCONT)
        final = wait_exhausted(cluster, "web")
    finally:
        stopped = cluster.stop()
        sim.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")
    requests = [r for r in sim.requests() if is_page_request(r)]
    after = collections_counter(url_of(r) for r in requests if r.ns >= created_ns)
    missing = expected - set(after)
    twice = {u: n for u, n in after.items() if n > 1}
    checks.check(not missing, f"{len(missing)} pages not fetched by the new collection")
    checks.check(not twice, f"{len(twice)} pages fetched twice since the re-create, e.g. "
                            f"{sorted(twice.items())[:3]}")
    pages = int(field(final, "pages"))
    fetched = sum(int(o.get("count", 0)) for o in final.get("outcomes", [])
                  if o.get("outcome") == "OUTCOME_CLASS_FETCHED")
    checks.check(pages == len(expected) and fetched == pages,
                 f"the new collection's statistics: {pages} pages, {fetched} fetched; the truth "
                 f"has {len(expected)}")
    late = sum(1 for r in requests if deleted_ns + 200_000_000 <= r.ns < created_ns)
    print(f"recreate: deleted at 30%, created again {(created_ns - deleted_ns) / 1e6:.0f} ms later; "
          f"{late} pages fetched between 0.2 s after the delete and the create; the new one "
          f"fetched {len(after)} of {len(expected)} pages, {len(twice)} twice; its statistics: "
          f"{pages} pages, {fetched} fetched", flush=True)


def collections_counter(items):
    import collections
    return collections.Counter(items)


def scenario_small(args, checks, work):
    from crawlertest.cluster import Cluster
    cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), 1, redis=False)
    try:
        cluster.start_one("frontier", 0, first=True)
        cluster.start_one("scheduler", first=True)
        # A 3 MB pattern that does not compile: exit 2, and an error of a few hundred bytes.
        write_collection(work("regex.yaml"), "regex", ["http://a.test/"],
                         [f"exclude: ['({'a' * (3 << 20)}']"])
        out = cluster.ctl("collections", "create", "-f", work("regex.yaml"), check=False)
        seen = [f"a 3 MB bad pattern: exit {out.returncode}, {len(out.stderr)} bytes of error"]
        checks.check(out.returncode == 2 and len(out.stderr) < 4096 and
                     "pattern" in out.stderr,
                     f"a 3 MB bad pattern: exit {out.returncode}, {len(out.stderr)} bytes of "
                     f"error: {out.stderr[:300]}")
        # Every seed out of scope: refused, naming the seeds and why.
        write_collection(work("out.yaml"), "out", ["http://a.example.org/"],
                         ["allow_host_suffixes: [test]"])
        out = cluster.ctl("collections", "create", "-f", work("out.yaml"), check=False)
        seen.append(f"seeds all out of scope: exit {out.returncode}")
        checks.check(out.returncode == 2 and "host_not_allowed" in out.stderr,
                     f"a collection whose seeds are all out of scope: exit {out.returncode}: "
                     f"{out.stderr.strip()[:300]} {out.stdout[:200]}")
        # A 70 KB seed is rejected with its reason in sight.
        write_collection(work("ok.yaml"), "ok", ["http://a.test/"])
        cluster.ctl("collections", "create", "-f", work("ok.yaml"))
        with open(work("seeds.txt"), "w") as f:
            f.write(f"http://a.test/{'c' * 70000}\n")
        out = cluster.ctl("seeds", "add", "ok", work("seeds.txt"), check=False)
        line = next((l for l in out.stdout.splitlines() if "a.test/ccc" in l), "")
        seen.append(f"a rejected 70 KB seed listed in {len(line)} bytes")
        checks.check(out.returncode == 0 and len(line) < 400 and "trap_too_long" in line,
                     f"a rejected 70 KB seed is listed as {len(line)} bytes: {line[:120]}"
                     f"...{line[-60:]}")
        # Two documents in one collection file.
        with open(work("two.yaml"), "w") as f:
            f.write("name: one\nseeds: [http://a.test/]\n---\nname: two\nseeds: [http://b.test/]\n")
        out = cluster.ctl("collections", "create", "-f", work("two.yaml"), check=False)
        seen.append(f"two YAML documents: exit {out.returncode}")
        checks.check(out.returncode == 2 and "document" in out.stderr,
                     f"a file of two collections: exit {out.returncode}: {out.stderr.strip()[:200]}")
        print(f"small: {'; '.join(seen)}", flush=True)
    finally:
        stopped = cluster.stop()
        checks.check(all(c == 0 for c in stopped.values()), f"exit codes: {stopped}")


SCENARIOS = {"disk_full": scenario_disk_full, "internal_auth": scenario_internal_auth,
             "big_messages": scenario_big_messages, "refusals_log": scenario_refusals_log,
             "roles": scenario_roles, "big_definitions": scenario_big_definitions,
             "recreate": scenario_recreate, "small": scenario_small}
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
    from crawlertest.cluster import ClusterError
    return run_scenario(args, SCENARIOS, "hardening", "hard",
                        errors=(Fatal, ClusterError, subprocess.TimeoutExpired))


if __name__ == "__main__":
    sys.exit(main())
