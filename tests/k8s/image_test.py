#!/usr/bin/env python3
"""The crawler's container images (docker/build-images.sh) crawl websim: websim runs on the
host's loopback, `podman run --network host --read-only` runs `crawler crawl` from an image as
its unprivileged user with only the work directory mounted. Checked: every allowed page fetched
once, the stats agree, the files belong to the image's user (65532), the image has no writable
path the crawl needed (read-only root), and each role of crawlerd starts from the image.

Then the image with the browser (:latest-browser) renders: `--render always --sitemap-discovery
off` over a web of scripted hosts, with a tmpfs /tmp of the chart's fetcher.browser.tmpSize as
the only writable path, reaches every page, those that only script links lead to included, and
the browser's subresources come through the crawler. The plain image given the same crawl
refuses it before sending a request: exit 1 (a refusal, not a crash), naming the browser it
lacks.

usage: image_test.py --build-dir BUILD --websim WEBSIM
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

from crawlertest.e2e import (  # noqa: E402
    Fatal, Websim, check_coverage, check_renders, check_scripted_crawl, monotonic_ns,
    read_crawl_log, run_scenario)

IMAGE = "localhost/crawler:latest"
BROWSER_IMAGE = "localhost/crawler:latest-browser"


def podman_run(args, workdir, timeout_s=300, options=()):
    cmd = ["podman", "run", "--rm", "--network", "host", "--read-only", *options,
           "-v", f"{workdir}:/work", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)


def chart_tmp_size():
    """The chart's default fetcher.browser.tmpSize (a Kubernetes quantity in Mi or Gi), as a
    podman --tmpfs size."""
    with open(os.path.join(ROOT, "helm", "crawler", "values.yaml")) as f:
        m = re.search(r"^    tmpSize: ([0-9]+)(Mi|Gi)$", f.read(), re.M)
    if not m:
        raise Fatal("helm/crawler/values.yaml: no fetcher.browser.tmpSize in Mi or Gi")
    return f"{m.group(1)}{m.group(2)[0].lower()}"


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
    check_render(args, checks, work)


def render_crawl(image, sim, work, name, options=()):
    """`crawler crawl --render always` of websim's scripted web from `image`, into /work/NAME."""
    return podman_run(["--entrypoint", "/usr/local/bin/crawler", image, "crawl",
                       "--seeds", "/work/render/seeds.txt", "--data-dir", f"/work/{name}",
                       "--connect-to", f"127.0.0.1:{sim.port}", "--allow-network", "127.0.0.0/8",
                       "--min-delay", "20ms", "--delay-factor", "0", "--render", "always",
                       "--sitemap-discovery", "off", "--stats-json", f"/work/{name}.json"],
                      work.path, options=options)


def check_render(args, checks, work):
    """The browser image renders a web of scripted hosts; the plain image refuses the same crawl,
    naming the browser it lacks."""
    os.makedirs(work("render"), mode=0o777)
    os.chmod(work("render"), 0o777)
    tmp_size = chart_tmp_size()
    sim = Websim(args.websim, lambda *p: work("render", *p), hosts=4, pages=15, seed=21,
                 extra_args=("--scripted-hosts", "1")).start()
    try:
        truth, _ = sim.truth()
        t = time.monotonic()
        # The browser's profile and shared memory (--disable-dev-shm-usage) go to /tmp: a tmpfs
        # of the chart's size is its only writable path (no /run, no /var/tmp).
        browser = render_crawl(BROWSER_IMAGE, sim, work, "browser",
                               ("--read-only-tmpfs=false", "--tmpfs", f"/tmp:rw,size={tmp_size},mode=1777"))
        browser_s = time.monotonic() - t
        # websim's log is complete only once it has exited: the crawls are told apart by time.
        between_ns = monotonic_ns()
        plain = render_crawl(IMAGE, sim, work, "plain")
    finally:
        sim.stop()
    requests = sim.requests()
    first = [r for r in requests if r.ns < between_ns]
    second = [r for r in requests if r.ns >= between_ns]
    print(f"  browser image: crawl exit {browser.returncode} in {browser_s:.0f} s: "
          f"{browser.stderr.strip()[-300:]}", flush=True)
    if checks.check(browser.returncode == 0, f"browser image: crawl exited {browser.returncode}"):
        fetched, subresources = check_scripted_crawl(checks, first, truth, True,
                                                     "browser image")
        lines, bad = read_crawl_log(work("browser", "crawl.log"))
        checks.check(not bad, f"browser image: {len(bad)} malformed crawl log lines")
        outcomes = check_renders(checks, lines, fetched, "browser image")
        with open(work("browser.json")) as f:
            pages = json.load(f).get("pages")
        checks.check(pages == len(fetched), f"browser image: stats pages {pages}, fetched {len(fetched)}")
        print(f"  browser image: {len(fetched)} pages ({len(truth['render_only'])} only by "
              f"rendering), renders {dict(outcomes)}, {subresources} subresources through the "
              f"crawler, /tmp a {tmp_size} tmpfs", flush=True)
    # A collection that renders starts its browser with its first fetcher: without one, the
    # crawl stops there, before any request.
    refusal = [l for l in plain.stderr.splitlines()
               if "browser executable 'chromium-headless-shell' not found" in l]
    print(f"  plain image: crawl exit {plain.returncode}, {len(second)} requests: "
          f"{refusal[0] if refusal else plain.stderr.strip()[-300:]}", flush=True)
    checks.check(plain.returncode == 1 and refusal and not second,
                 f"plain image: exit {plain.returncode}, {len(second)} requests to websim, "
                 f"stderr {plain.stderr.strip()[-300:]!r}; want exit 1 naming the missing "
                 f"browser, before any request")


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
