#!/usr/bin/env python3
"""TLS on both of the scheduler's ports and between services: certificates made at test time
with the openssl command (a CA and a server certificate for 127.0.0.1), a frontier and the
scheduler started with them (crawlerd, loopback), crawlctl talking to the Admin API over TLS
with the CA, the scheduler reaching the frontier over TLS (its statistics count the partition as
reporting), and a plaintext client refused. Python 3 standard library plus the openssl command.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True

from crawlertest.cluster import Cluster, ClusterError  # noqa: E402
from crawlertest.e2e import Checks  # noqa: E402


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certs(d):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=crawler test CA", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=localhost", cwd=d)
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext", cwd=d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out",
            "other.pem", "-days", "2", "-subj", "/CN=another CA", cwd=d)
    return (os.path.join(d, "ca.pem"), os.path.join(d, "server.pem"),
            os.path.join(d, "server.key"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawlerd", required=True)
    parser.add_argument("--crawlctl", required=True)
    args = parser.parse_args()
    checks = Checks("tls")
    check = checks.check

    with tempfile.TemporaryDirectory(prefix="tls-") as work:
        ca, cert, key = make_certs(work)
        tls = ["--tls-cert-file", cert, "--tls-key-file", key]
        admin_tls = ["--admin-tls-cert-file", cert, "--admin-tls-key-file", key]
        cluster = Cluster(args.crawlerd, args.crawlctl, os.path.join(work, "cluster"), 1,
                          frontier_args=tls,
                          scheduler_args=tls + admin_tls + ["--peer-tls-ca-file", ca])
        try:
            cluster.start_one("frontier", 0, first=True)
            cluster.start_one("scheduler", first=True)
            coll = os.path.join(work, "c.yaml")
            with open(coll, "w") as f:
                f.write("name: tls\nseeds:\n  - http://a.example/\n")
            secure = ["--ca-file", ca]
            out = cluster.ctl(*secure, "collections", "create", "-f", coll, check=False)
            check(out.returncode == 0, f"create over TLS: {out.returncode} {out.stderr.strip()}")
            out = cluster.ctl(*secure, "stats", "tls", json_out=True, check=False)
            check(out.returncode == 0, f"stats over TLS: {out.returncode} {out.stderr.strip()}")
            if out.returncode == 0:
                stats = json.loads(out.stdout)
                check(int(stats.get("partitions_reporting", 0)) == 1,
                      f"the scheduler did not reach the frontier over TLS: {stats}")
                check(int(stats.get("queued_urls", 0)) == 1, f"seed not queued: {stats}")
            out = cluster.ctl("--timeout", "3s", "collections", "list", check=False)
            check(out.returncode == 3, f"a plaintext client got exit {out.returncode}, not 3")
            wrong_ca = ["--ca-file", os.path.join(work, "other.pem")]  # did not sign the server
            out = cluster.ctl("--timeout", "3s", *wrong_ca, "collections", "list", check=False)
            check(out.returncode == 3, f"an untrusted server got exit {out.returncode}, not 3")
        except ClusterError as e:
            check(False, str(e))
        finally:
            codes = cluster.stop()
            check(all(c == 0 for c in codes.values()), f"exit codes: {codes}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
