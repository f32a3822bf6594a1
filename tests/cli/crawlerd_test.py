#!/usr/bin/env python3
"""Contract test of `crawlerd` (docs/services.md): each role starts from a YAML file on a free
loopback port and logs its address, rejects bad configuration with exit code 2 naming the key,
exits 1 when it cannot start (data_dir or address in use), and on SIGTERM drains, logs
`<role>: stopped` and exits 0; the scheduler takes port 0 for both of its addresses. Python 3
standard library only; every wait is bounded and every process started is killed in a
`finally`.

Usage: crawlerd_test.py --crawlerd PATH
"""

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 30


class Failed(Exception):
    pass


def check(ok, message):
    if not ok:
        raise Failed(message)


def run(cmd, timeout_s=TIMEOUT_S):
    """Runs `cmd` to completion; returns (exit code, stderr)."""
    done = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout_s, text=True)
    return done.returncode, done.stdout + done.stderr


class Daemon:
    """One crawlerd process, stderr to a file, stopped in close()."""

    def __init__(self, cmd, stderr_path):
        self.stderr_path = stderr_path
        with open(stderr_path, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def stderr(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def wait_for(self, pattern):
        """Polls stderr until `pattern` matches (bounded); returns the match."""
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            match = re.search(pattern, self.stderr())
            if match:
                return match
            check(self.proc.poll() is None,
                  f"exited {self.proc.returncode} before logging /{pattern}/: {self.stderr()}")
            time.sleep(0.05)
        raise Failed(f"no /{pattern}/ within {TIMEOUT_S} s: {self.stderr()}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT_S)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def serve_and_stop(crawlerd, role, config, work):
    """Starts `crawlerd ROLE --config CONFIG`, checks it serves on the port it names, sends
    SIGTERM, and expects exit 0 with the drain's log lines."""
    daemon = Daemon([crawlerd, role, "--config", config], os.path.join(work, f"{role}.err"))
    try:
        match = daemon.wait_for(rf"{role}: serving on 127\.0\.0\.1:(\d+)\n")
        port = int(match.group(1))
        check(port > 0, f"{role}: serving on port 0")
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S):
            pass  # something accepts connections where the log says
        daemon.proc.send_signal(signal.SIGTERM)
        rc = daemon.proc.wait(timeout=TIMEOUT_S)
        err = daemon.stderr()
        check(rc == 0, f"{role}: SIGTERM: exit {rc}: {err}")
        for line in (f"{role}: SIGTERM received, draining",
                     f"{role}: stopped serving on 127.0.0.1:{port}",
                     f"{role}: stopped\n"):
            check(line in err, f"{role}: no '{line.strip()}' in: {err}")
        check(err.index("draining") < err.rindex(f"{role}: stopped\n"),
              f"{role}: 'stopped' before the drain: {err}")
    finally:
        daemon.close()


def usage_error(crawlerd, args, expect, what):
    rc, err = run([crawlerd, *args])
    check(rc == 2, f"{what}: exit {rc}, expected 2: {err}")
    check(expect in err, f"{what}: '{expect}' not in: {err}")


def test_dedup(crawlerd, work):
    data_dir = os.path.join(work, "dedup-data")
    config = write(os.path.join(work, "dedup.yaml"),
                   f"listen: 127.0.0.1:0\ndata_dir: {data_dir}\ndrain_timeout: 5s\n")
    serve_and_stop(crawlerd, "dedup", config, work)
    check(os.path.isfile(os.path.join(data_dir, "CURRENT")), "dedup: no RocksDB in data_dir")
    # The same data dir again: the index reopens.
    serve_and_stop(crawlerd, "dedup", config, work)

    # docs/services.md, exit 1: could not start (data_dir locked by another process, address
    # in use).
    first = Daemon([crawlerd, "dedup", "--config", config], os.path.join(work, "first.err"))
    try:
        port = int(first.wait_for(r"dedup: serving on 127\.0\.0\.1:(\d+)\n").group(1))
        rc, err = run([crawlerd, "dedup", "--config", config])
        check(rc == 1, f"dedup on a data_dir in use: exit {rc}, want 1: {err}")
        rc, err = run([crawlerd, "dedup", "--config", config, "--data-dir", data_dir + "-2",
                       "--listen", f"127.0.0.1:{port}"])
        check(rc == 1, f"dedup on an address in use: exit {rc}, want 1: {err}")
    finally:
        first.close()

    bad = write(os.path.join(work, "bad.yaml"), f"data_dir: {data_dir}\nlisten_adress: x:1\n")
    usage_error(crawlerd, ["dedup", "--config", bad], 'unknown key "listen_adress"',
                "unknown key")
    usage_error(crawlerd, ["dedup", "--listen", "127.0.0.1:0"], "data_dir is required",
                "no data_dir")
    usage_error(crawlerd, ["dedup", "--config", config, "--near-duplicate-bits", "9"],
                "near_duplicate_bits", "bad value")
    usage_error(crawlerd, ["dedup", "--config", config, "--metrics-listen", "nowhere"],
                "metrics_listen", "bad metrics_listen")
    usage_error(crawlerd, ["dedup", "--config", os.path.join(work, "missing.yaml")],
                "missing.yaml", "missing config file")

    rc, out = run([crawlerd, "dedup", "--help"])
    check(rc == 0, f"dedup --help: exit {rc}")
    for flag in ("--config", "--listen", "--data-dir", "--drain-timeout", "--near-duplicate-bits"):
        check(flag in out, f"dedup --help lacks {flag}: {out}")


def test_scheduler_port_zero(crawlerd, work):
    """docs/configuration.md: port 0 picks a free port, for `listen` and `admin_listen` alike, so
    both may ask for it; the start-up lines name the two ports."""
    token = write(os.path.join(work, "admin.token"), "0123456789abcdef0123\n")
    config = write(os.path.join(work, "scheduler.yaml"),
                   f"listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\n"
                   f"admin_token_file: {token}\ndata_dir: {os.path.join(work, 'sched-data')}\n"
                   f"frontiers: [127.0.0.1:1]\ndrain_timeout: 5s\n")
    daemon = Daemon([crawlerd, "scheduler", "--config", config],
                    os.path.join(work, "scheduler.err"))
    try:
        daemon.wait_for(r"(serving on 127\.0\.0\.1:\d+\n[^\n]*){2}")
        ports = re.findall(r"scheduler: serving on 127\.0\.0\.1:(\d+)\n", daemon.stderr())
        check(len(set(ports)) == 2 and "0" not in ports,
              f"scheduler: two ports expected: {daemon.stderr()}")
        for port in ports:
            with socket.create_connection(("127.0.0.1", int(port)), timeout=TIMEOUT_S):
                pass
        daemon.proc.send_signal(signal.SIGTERM)
        rc = daemon.proc.wait(timeout=TIMEOUT_S)
        check(rc == 0, f"scheduler: SIGTERM: exit {rc}: {daemon.stderr()}")
    finally:
        daemon.close()
    # The same fixed address twice is still refused.
    usage_error(crawlerd, ["scheduler", "--config", config, "--listen", "127.0.0.1:50999",
                           "--admin-listen", "127.0.0.1:50999"],
                "admin_listen must differ", "listen = admin_listen")


def test_top_level(crawlerd):
    rc, out = run([crawlerd, "--help"])
    check(rc == 0 and "dedup" in out, f"crawlerd --help: exit {rc}: {out}")
    rc, out = run([crawlerd])
    check(rc == 2, f"crawlerd without a role: exit {rc}, expected 2: {out}")
    rc, out = run([crawlerd, "nosuchrole"])
    check(rc == 2, f"crawlerd nosuchrole: exit {rc}, expected 2: {out}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--crawlerd", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crawlerd_test_") as work:
        try:
            test_top_level(args.crawlerd)
            test_dedup(args.crawlerd, work)
            test_scheduler_port_zero(args.crawlerd, work)
        except (Failed, subprocess.TimeoutExpired) as e:
            print(f"FAIL: {e}", flush=True)
            return 1
    print("crawlerd_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
