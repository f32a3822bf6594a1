#!/usr/bin/env python3
"""The crawler's container image (docker/build-images.sh) crawls websim: websim runs on the
host's loopback, `podman run --network host --read-only` runs `crawler crawl` from the image as
its unprivileged user with only the work directory mounted. Checked: every allowed page fetched
once, the stats agree, the files belong to the image's user (65532), the image has no writable
path the crawl needed (read-only root), and each role of crawlerd starts from the image.

usage: image_test.py --build-dir BUILD --websim WEBSIM
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

from crawlertest.e2e import Fatal, Websim, check_coverage, run_scenario  # noqa: E402

IMAGE = "localhost/crawler:latest"


def podman_run(args, workdir, timeout_s=300):
    cmd = ["podman", "run", "--rm", "--network", "host", "--read-only",
           "-v", f"{workdir}:/work", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)


def scenario_crawl(args, checks, work):
    t = time.monotonic()
    out = subprocess.run([os.path.join(ROOT, "docker", "build-images.sh"), args.build_dir],
                         capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise Fatal(f"build-images.sh exited {out.returncode}: {out.stderr[-2000:] or '(no message)'}")
    for line in out.stderr.splitlines():
        if line.startswith("build-images:"):
            print(f"  {line}", flush=True)  # what it found in its cache and rebuilt
    sizes = [line for line in out.stdout.splitlines() if line.startswith("localhost/")]
    print(f"  images built in {time.monotonic() - t:.0f} s: {'; '.join(sizes)}", flush=True)
    user = subprocess.run(["podman", "image", "inspect", IMAGE, "--format", "{{.Config.User}}"],
                          capture_output=True, text=True).stdout.strip()
    checks.check(user == "65532:65532", f"image user {user!r}, expected 65532:65532")

    os.chmod(work.path, 0o777)
    sim = Websim(args.websim, work, hosts=10, pages=15, seed=11).start()
    try:
        run = podman_run(["--entrypoint", "/usr/local/bin/crawler", IMAGE, "crawl",
                          "--seeds", "/work/seeds.txt", "--data-dir", "/work/crawl",
                          "--connect-to", f"127.0.0.1:{sim.port}", "--allow-network", "127.0.0.0/8",
                          "--min-delay", "20ms", "--delay-factor", "0",
                          "--stats-json", "/work/stats.json"], work.path)
    finally:
        sim.stop()
    print(f"  podman run crawler crawl: exit {run.returncode}: {run.stderr.strip()[-300:]}", flush=True)
    checks.check(run.returncode == 0, f"crawl in the container exited {run.returncode}")
    truth, _ = sim.truth()
    expected = truth["page"] | truth["seed"]
    counts, coverage = check_coverage(checks, sim.requests(), truth)
    repeated = [u for u, n in counts.items() if n > 1]
    checks.check(not repeated, f"pages fetched twice: {repeated[:5]}")
    with open(work("stats.json")) as f:
        stats = json.load(f)
    checks.check(stats.get("pages") == len(expected),
                 f"stats pages {stats.get('pages')}, truth {len(expected)}")
    owner = os.stat(work("crawl", "crawl.log")).st_uid
    checks.check(owner == 65532, f"crawl log owned by uid {owner}, expected 65532")
    print(f"  crawl: coverage {coverage:.2f}% of {len(expected)} pages", flush=True)

    for role in ("frontier", "fetcher", "dedup", "scheduler"):
        out = podman_run([IMAGE, role, "--help"], work.path, timeout_s=60)
        checks.check(out.returncode == 0 and "--config" in out.stdout,
                     f"crawlerd {role} --help in the image: exit {out.returncode} {out.stderr[-300:]}")
    out = podman_run([IMAGE, "frontier", "--data-dir", "/work/frontier", "--listen",
                      "127.0.0.1:0", "--partitions", "1", "--bogus-flag"], work.path, timeout_s=60)
    checks.check(out.returncode == 2, f"a bad flag: exit {out.returncode}, expected 2")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--websim", required=True)
    p.add_argument("--scenario", default="crawl", choices=["crawl"])
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    return run_scenario(args, {"crawl": scenario_crawl}, "k8s.image", "crawler-image",
                        errors=(Fatal, subprocess.TimeoutExpired))


if __name__ == "__main__":
    sys.exit(main())
