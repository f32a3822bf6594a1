#!/usr/bin/python3
"""A client of the Admin API in another language: Python with Debian's grpcio and protobuf.

Generates the Python stubs from proto/ at test time (Debian's protoc with grpc_python_plugin;
nothing generated is kept), starts a frontier partition and the scheduler (crawlerd, loopback,
no fetcher: nothing is fetched), then as a user's script would: creates a collection, streams
seeds into it, reads it back, reads its statistics, and checks that a call without the token is
refused and that health answers for each service by name. Python 3 standard library plus
python3-grpcio and python3-protobuf.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

from crawlertest.cluster import Cluster  # noqa: E402
from crawlertest.e2e import Checks  # noqa: E402


def generate_stubs(out_dir, protoc, plugin):
    os.makedirs(out_dir, exist_ok=True)
    protos = sorted(glob.glob(os.path.join(REPO, "proto", "crawler", "v1", "*.proto")))
    cmd = [protoc, f"--proto_path={os.path.join(REPO, 'proto')}", "--proto_path=/usr/include",
           f"--python_out={out_dir}", f"--grpc_python_out={out_dir}",
           f"--plugin=protoc-gen-grpc_python={plugin}"] + \
          [os.path.relpath(p, os.path.join(REPO, "proto")) for p in protos]
    subprocess.run(cmd, check=True)
    sys.path.insert(0, out_dir)


def health(address, service):
    """grpc.health.v1.Health/Check of `service` at `address` as raw bytes (no health stubs):
    request field 1 is the name; the answer's field 1 is SERVING (08 01) or NOT_SERVING (08 02).
    Returns "SERVING", "NOT_SERVING" or the gRPC code's name."""
    import grpc
    name = service.encode()
    with grpc.insecure_channel(address) as channel:
        check_call = channel.unary_unary("/grpc.health.v1.Health/Check")
        try:
            answer = check_call(b"\x0a" + bytes([len(name)]) + name, timeout=20)
        except grpc.RpcError as e:
            return e.code().name
    return {b"\x08\x01": "SERVING", b"\x08\x02": "NOT_SERVING"}.get(answer, repr(answer))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawlerd", required=True)
    parser.add_argument("--protoc", default="/usr/bin/protoc")
    parser.add_argument("--plugin", default="/usr/bin/grpc_python_plugin")
    args = parser.parse_args()
    checks = Checks("python client")
    check = checks.check

    with tempfile.TemporaryDirectory(prefix="pyclient-") as work:
        generate_stubs(os.path.join(work, "gen"), args.protoc, args.plugin)
        import grpc
        from crawler.v1 import admin_pb2, admin_pb2_grpc

        cluster = Cluster(args.crawlerd, None, os.path.join(work, "cluster"), partitions=1)
        try:
            cluster.start_one("frontier", 0)
            cluster.start_one("scheduler")
            token = open(cluster.token_file).read().strip()
            auth = [("authorization", f"Bearer {token}")]
            with grpc.insecure_channel(cluster.admin) as channel:
                admin = admin_pb2_grpc.AdminStub(channel)
                collection = admin_pb2.Collection(name="py", seeds=["http://a.example/"])
                collection.scope.allowed_host_suffixes.append("example")
                collection.limits.max_pages = 1000
                info = admin.CreateCollection(
                    admin_pb2.CreateCollectionRequest(collection=collection), metadata=auth,
                    timeout=20)
                check(info.state == admin_pb2.COLLECTION_STATE_ACTIVE,
                      f"created collection state {info.state}")

                def seeds():
                    yield admin_pb2.AddSeedsRequest(
                        collection="py", seeds=[f"http://h{i}.example/p{i}" for i in range(5000)])
                    yield admin_pb2.AddSeedsRequest(seeds=["http://elsewhere.org/", "no url"])

                added = admin.AddSeeds(seeds(), metadata=auth, timeout=60)
                check(added.seeds == 5002 and added.queued == 5000 and added.rejected == 2,
                      f"AddSeeds reply: {added}")
                got = admin.GetCollection(admin_pb2.GetCollectionRequest(name="py"),
                                          metadata=auth, timeout=20)
                check(got.collection.limits.max_pages == 1000, f"GetCollection: {got}")
                stats = admin.GetCollectionStats(admin_pb2.GetCollectionStatsRequest(name="py"),
                                                 metadata=auth, timeout=20)
                check(stats.queued_urls == 5001, f"stats queued_urls {stats.queued_urls}")
                check(stats.partitions_reporting == 1, f"stats: {stats.partitions_reporting} "
                                                       f"partitions reporting")
                try:
                    admin.ListCollections(admin_pb2.ListCollectionsRequest(), timeout=20)
                    check(False, "ListCollections without a token succeeded")
                except grpc.RpcError as e:
                    check(e.code() == grpc.StatusCode.UNAUTHENTICATED,
                          f"no token: {e.code()} instead of UNAUTHENTICATED")
                try:
                    admin.GetCollection(admin_pb2.GetCollectionRequest(name="nope"),
                                        metadata=auth, timeout=20)
                    check(False, "GetCollection of an unknown collection succeeded")
                except grpc.RpcError as e:
                    check(e.code() == grpc.StatusCode.NOT_FOUND, f"unknown: {e.code()}")
                print(f"python client: created 'py', streamed {added.seeds} seeds "
                      f"({added.queued} queued, {added.rejected} rejected), stats: "
                      f"{stats.queued_urls} queued over {stats.partitions_total} partition(s)",
                      flush=True)
            # docs/services.md: health answers for "" and for each service by its name, on the
            # address that serves it (Kubernetes gRPC probes name the service).
            for address, service, want in (
                    (cluster.address("frontier", 0), "", "SERVING"),
                    (cluster.address("frontier", 0), "crawler.v1.Frontier", "SERVING"),
                    (cluster.address("scheduler", 0), "crawler.v1.SchedulerInternal", "SERVING"),
                    (cluster.admin, "crawler.v1.Admin", "SERVING"),
                    (cluster.admin, "crawler.v1.SchedulerInternal", "NOT_FOUND")):
                got = health(address, service)
                check(got == want, f"health of '{service}' at {address}: {got}, want {want}")
        finally:
            codes = cluster.stop()
            check(all(c == 0 for c in codes.values()), f"exit codes: {codes}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
