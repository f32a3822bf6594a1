#!/usr/bin/env python3
"""Archive delivery end to end (docs/archive.md): CDXJ indexes against warcio.js's, bad inputs,
a collection pulled out of the distributed crawl, and a WACZ replayed in ReplayWeb.page.

    archive_test.py --scenario index|bad_inputs|pull|replay --crawler BIN --websim BIN
                    [--crawlerd BIN --crawlctl BIN] [--demo SCRIPT] [--artifacts DIR]

  index       `make demo` (scripts/demo.sh) and a re-visiting crawl of websim: the .cdxj the
              crawl wrote beside every WARC file equals `crawler warc index` of it and warcio.js's
              `cdx-index` line by line (key, timestamp, offset, length, digest; 0 lines may
              differ); `crawler warc verify` accepts each index and reports a wrong offset;
  bad_inputs  a truncated WARC, a gzip member cut in the middle, a WARC without request
              records, an uncompressed WARC, a file named twice: a clear error and no package,
              or (no request records, uncompressed) an index equal to warcio.js's;
  pull        a two-partition cluster (scripts/cluster.py) crawls websim with small WARC files;
              `crawlctl archive pull` while it crawls names the files still being written, and
              once it is done gathers every finished file (byte for byte the fetchers' files,
              every record once, each index equal to warcio.js's), builds the WACZ, resumes a
              broken transfer from where it stopped and fetches a corrupt one again;
  replay      a websim crawl with re-visits packaged with `crawler warc wacz`, opened in
              ReplayWeb.page in headless Chromium: 20 sampled pages show their archived text, a
              revisit record replays; screenshots go to --artifacts. Exits 77 (skipped) only
              when Chromium is not installed or cannot start here.

npm packages (warcio, replaywebpage) come from the checked cache of crawlertest.npm; if the
npm registry cannot provide them the test fails, it does not skip.
"""

import argparse
import collections
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))

from crawlertest import npm, replay  # noqa: E402
from crawlertest.archive import (Skipped, check_replay, check_wacz,  # noqa: E402
                                 compare_with_warcio, read_lines, record_ids, run, sha256)
from crawlertest.cluster import Cluster  # noqa: E402
from crawlertest.e2e import (Crawl, Fatal, Websim, crawl_command, run_scenario,  # noqa: E402
                             wait_until)

SKIP = 77


def check_beside_indexes(checks, args, cli, warc_dir, what):
    """Every WARC of `warc_dir` has its sorted .cdxj, equal to `crawler warc index` and to
    warcio.js's; the indexes verify. Returns the (lines, differing) totals."""
    warcs = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))
    if not checks.check(warcs, f"{what}: no WARC files in {warc_dir}"):
        return 0, 0
    total = differing_total = identical_total = 0
    for warc in warcs:
        cdxj = warc[:-len(".warc.gz")] + ".cdxj"
        if not checks.check(os.path.exists(cdxj), f"{what}: no index beside {warc}"):
            continue
        beside = read_lines(cdxj)
        checks.check(beside == sorted(beside), f"{what}: {cdxj} is not sorted")
        cli_out = run([args.crawler, "warc", "index", warc])
        checks.check(cli_out.returncode == 0 and cli_out.stdout.splitlines() == beside,
                     f"{what}: `crawler warc index {warc}` differs from {cdxj}")
        lines, differing, identical = compare_with_warcio(checks, cli, warc, beside, what)
        total += lines
        differing_total += differing
        identical_total += identical
        verify = run([args.crawler, "warc", "verify", cdxj])
        checks.check(verify.returncode == 0 and ": OK," in verify.stdout,
                     f"{what}: crawler warc verify {cdxj}: {verify.stdout}{verify.stderr}")
    print(f"{what}: {len(warcs)} WARC files, {total} index lines; {differing_total} differ from "
          f"warcio.js's in key/timestamp/offset/length/digest, {identical_total} identical "
          f"byte for byte", flush=True)
    return total, differing_total


def revisit_crawl(args, work, hosts=5, pages=12, seconds=10):
    """A crawl of static websim pages with re-visits: the second fetch of a page is an exact
    duplicate of the first, archived as a revisit record. Returns the WARC directory."""
    sim = Websim(args.websim, work, hosts=hosts, pages=pages, seed=35)
    crawl = None
    try:
        sim.start()
        cmd = crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                            work("stats.json"), 20,
                            extra=["--revisit", "--revisit-budget", "20/s",
                                   "--revisit-min-interval", "2s", "--revisit-tune-interval",
                                   "1s", "--run-for", f"{seconds}s"])
        crawl = Crawl(cmd, work("crawl.stderr"))
        rc = crawl.wait(seconds + 120)
        if rc != 0:
            raise Fatal(f"re-visiting crawl exited with {rc}: {crawl.stderr()}")
    finally:
        if crawl is not None:
            crawl.kill()
        sim.stop()
    return work("data", "warc")


def scenario_index(args, checks, work):
    cli = npm.warcio_cli()
    demo_dir = work("demo")
    out = run(["bash", args.demo, args.build_dir], timeout_s=600,
              env={**os.environ, "DEMO_DIR": demo_dir})
    if out.returncode != 0:
        raise Fatal(f"scripts/demo.sh exited with {out.returncode}: {out.stderr[-2000:]}")
    demo_lines, demo_diff = check_beside_indexes(checks, args, cli,
                                                 os.path.join(demo_dir, "data", "warc"), "demo")
    check_wacz(checks, os.path.join(demo_dir, "demo.wacz"), "demo WACZ")
    warc_dir = revisit_crawl(args, work)
    lines, diff = check_beside_indexes(checks, args, cli, warc_dir, "re-visiting crawl")
    revisits = sum('"mime":"warc/revisit"' in l
                   for c in glob.glob(os.path.join(warc_dir, "*.cdxj")) for l in read_lines(c))
    checks.check(revisits > 0, "the re-visiting crawl archived no revisit record")

    # A wrong offset is found, and said to be one.
    cdxj = sorted(glob.glob(os.path.join(warc_dir, "*.cdxj")))[0]
    original = read_lines(cdxj)
    broken = list(original)
    key, ts, data = broken[len(broken) // 2].split(" ", 2)
    j = json.loads(data)
    j["offset"] = str(int(j["offset"]) + 5)
    broken[len(broken) // 2] = f"{key} {ts} {json.dumps(j, separators=(',', ':'))}"
    with open(cdxj, "w") as f:
        f.write("\n".join(broken) + "\n")
    verify = run([args.crawler, "warc", "verify", cdxj])
    checks.check(verify.returncode == 1 and "WRONG" in verify.stdout and
                 "not the start of a record" in verify.stdout,
                 f"a wrong offset was not reported: rc {verify.returncode}: {verify.stdout}")
    problems = [l.strip() for l in verify.stdout.splitlines()[1:]]
    print(f"index: demo {demo_lines} lines ({demo_diff} differing), re-visiting crawl {lines} "
          f"lines ({diff} differing, {revisits} revisits); a wrong offset is reported: "
          f"{[p for p in problems if 'not the start' in p][:1]}", flush=True)


def members(path):
    """(offset, length, warc-type) of every record of a gzip-per-record WARC, by the index of
    `warcio index` (the independent reader)."""
    out = run(["node", npm.warcio_cli(), "index", path, "--fields",
               "offset,length,warc-type"])
    if out.returncode != 0:
        raise Fatal(f"warcio index {path}: {out.stderr.strip()}")
    return [(r["offset"], r["length"], r.get("warc-type")) for r in map(json.loads,
                                                                           out.stdout.splitlines())]


def expect_refused(checks, args, work, what, inputs, message):
    """`crawler warc index` and `crawler warc wacz` both refuse `inputs`, saying `message`, and
    leave no package (nor any partial file) behind."""
    out_dir = work(f"out-{what.replace(' ', '-')}")
    os.makedirs(out_dir)
    index = run([args.crawler, "warc", "index", *inputs])
    checks.check(index.returncode == 1 and message in index.stderr,
                 f"{what}: warc index: rc {index.returncode}, stderr {index.stderr.strip()!r}")
    wacz = run([args.crawler, "warc", "wacz", "--collection", "c", "-o",
                os.path.join(out_dir, "c.wacz"), *inputs])
    checks.check(wacz.returncode != 0 and message in wacz.stderr,
                 f"{what}: warc wacz: rc {wacz.returncode}, stderr {wacz.stderr.strip()!r}")
    checks.check(os.listdir(out_dir) == [],
                 f"{what}: files left after a refused package: {os.listdir(out_dir)}")
    print(f"{what}: refused: {wacz.stderr.strip()[:200]}", flush=True)


def scenario_bad_inputs(args, checks, work):
    cli = npm.warcio_cli()
    warc_dir = revisit_crawl(args, work, hosts=3, pages=8, seconds=4)
    warc = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))[0]
    with open(warc, "rb") as f:
        data = f.read()
    recs = members(warc)

    truncated = work("truncated.warc.gz")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) - 100])
    expect_refused(checks, args, work, "truncated WARC", [truncated], "damaged at offset")

    cut = work("cut-member.warc.gz")
    offset, length, _ = recs[len(recs) // 2]
    with open(cut, "wb") as f:
        f.write(data[:offset + length // 2] + data[offset + length:])
    expect_refused(checks, args, work, "gzip member cut in the middle", [cut],
                   f"damaged at offset {offset}")

    twice = work("twice")
    os.makedirs(twice)
    shutil.copy(warc, twice)
    expect_refused(checks, args, work, "file named twice", [warc, os.path.join(twice,
                                                                               os.path.basename(warc))],
                   "is named twice")
    expect_refused(checks, args, work, "same file given twice", [warc, warc], "is named twice")

    # No request records: indexed and packaged like any file, the index equal to warcio.js's.
    no_requests = work("no-requests.warc.gz")
    with open(no_requests, "wb") as f:
        for offset, length, kind in recs:
            if kind != "request":
                f.write(data[offset:offset + length])
    out = run([args.crawler, "warc", "index", no_requests])
    checks.check(out.returncode == 0, f"no request records: warc index failed: {out.stderr}")
    lines, differing, _ = compare_with_warcio(checks, cli, no_requests,
                                              out.stdout.splitlines(), "no request records")
    checks.check(lines == len(out.stdout.splitlines()) and lines > 0,
                 f"no request records: {len(out.stdout.splitlines())} lines, warcio {lines}")
    wacz = run([args.crawler, "warc", "wacz", "--collection", "c", "-o", work("nr.wacz"),
                no_requests])
    checks.check(wacz.returncode == 0, f"no request records: wacz failed: {wacz.stderr}")
    if wacz.returncode == 0:
        check_wacz(checks, work("nr.wacz"), "no request records")

    # An uncompressed WARC: offsets and lengths in the plain file, as warcio.js reads them.
    plain = work("plain.warc")
    with open(plain, "wb") as f:
        f.write(gzip.decompress(data))
    out = run([args.crawler, "warc", "index", plain])
    checks.check(out.returncode == 0, f"uncompressed: warc index failed: {out.stderr}")
    compare_with_warcio(checks, cli, plain, out.stdout.splitlines(), "uncompressed")
    print(f"bad_inputs: {len(recs)} records in the sample WARC; no-request and uncompressed "
          f"files indexed as warcio.js does", flush=True)


# --------------------------------------------------------------------------------- pull

def fetcher_files(cluster, collection):
    """{name: path} of the finished WARC and CDXJ files on the fetchers' volumes."""
    files = {}
    for k in range(cluster.n):
        for path in glob.glob(os.path.join(cluster.dir, f"fetcher-{k}", "warc", collection, "*")):
            if path.endswith((".warc.gz", ".cdxj")):
                files[os.path.basename(path)] = path
    return files


def scenario_pull(args, checks, work):
    cli = npm.warcio_cli()
    sim = Websim(args.websim, work, hosts=6, pages=20, seed=36)
    cluster = None
    try:
        sim.start()
        cluster = Cluster(args.crawlerd, args.crawlctl, work("cluster"), partitions=2,
                          fetcher_args=["--allow-network", "127.0.0.0/8", "--connect-to",
                                        f"127.0.0.1:{sim.port}", "--min-delay", "100ms",
                                        "--delay-factor", "0", "--warc-max-file-bytes", "65536"])
        cluster.start()
        with open(work("c.yaml"), "w") as f:
            f.write("name: arch\nseeds:\n" + "".join(f"  - {s}\n" for s in sim.seeds()))
        cluster.ctl("collections", "create", "-f", work("c.yaml"))
        # While it crawls: what is finished comes, what is being written is named.
        wait_until(lambda: any(p.endswith(".warc.gz") for p in fetcher_files(cluster, "arch")),
                   120, "a first finished WARC file")
        early = cluster.ctl("archive", "pull", "arch", work("early"), check=False, timeout_s=300)
        checks.check(early.returncode == 0, f"pull during the crawl: rc {early.returncode}: "
                                            f"{early.stderr[-1500:]}")
        checks.check("still being written" in early.stderr,
                     f"pull during the crawl named nothing in progress: {early.stderr[-800:]}")
        wait_until(lambda: json.loads(cluster.ctl("stats", "arch", json_out=True).stdout)
                   .get("exhausted"), 300, "the crawl to finish", poll_s=1)

        def settled():
            listing = json.loads(cluster.ctl("archive", "list", "arch", json_out=True).stdout)
            return all(not f.get("in_progress") for f in listing.get("fetchers", [])) and listing
        listing = wait_until(settled, 60, "every file finished and indexed", poll_s=1)

        pulled = work("pulled")
        out = cluster.ctl("archive", "pull", "arch", pulled, "--wacz", check=False, timeout_s=600)
        checks.check(out.returncode == 0, f"pull: rc {out.returncode}: {out.stderr[-1500:]}")
        on_fetchers = fetcher_files(cluster, "arch")
        got = {n: os.path.join(pulled, n) for n in os.listdir(pulled)
               if n.endswith((".warc.gz", ".cdxj"))}
        checks.check(sorted(got) == sorted(on_fetchers),
                     f"pulled {sorted(got)}, the fetchers hold {sorted(on_fetchers)}")
        for name, path in on_fetchers.items():
            if name in got:
                checks.check(sha256(got[name]) == sha256(path), f"{name} differs from the fetcher's")
        warcs = sorted(p for n, p in got.items() if n.endswith(".warc.gz"))
        records = record_ids(warcs)
        ids = collections.Counter(r.get("warc-record-id") for r in records)
        repeated = [i for i, n in ids.items() if n > 1]
        checks.check(not repeated, f"records pulled more than once: {repeated[:3]}")
        expected = record_ids(sorted(p for n, p in on_fetchers.items() if n.endswith(".warc.gz")))
        checks.check(len(records) == len(expected),
                     f"{len(records)} records pulled, the fetchers hold {len(expected)}")
        lines = differing = 0
        for warc in warcs:
            l, d, _ = compare_with_warcio(checks, cli, warc, read_lines(warc[:-8] + ".cdxj"),
                                          "pulled")
            lines, differing = lines + l, differing + d
        z, _ = check_wacz(checks, os.path.join(pulled, "arch.wacz"), "pulled WACZ")
        index = z.read("indexes/index.cdxj").decode().splitlines() \
            if "indexes/index.cdxj" in z.namelist() else []
        checks.check(len(index) == lines, f"the WACZ indexes {len(index)} lines, the files {lines}")
        print(f"pull: {len(got)} files ({len(warcs)} WARC) from {cluster.n} fetchers, "
              f"{len(records)} records once each; {lines} index lines, {differing} differ from "
              f"warcio.js's", flush=True)

        # A broken transfer resumes where it stopped; a corrupt one is fetched again.
        big = max(warcs, key=os.path.getsize)
        size = os.path.getsize(big)
        with open(big, "rb") as f:
            head = f.read(size // 2)
        os.remove(big)
        with open(big + ".part", "wb") as f:
            f.write(head)
        other = [w for w in warcs if w != big][0]
        other_size = os.path.getsize(other)
        os.remove(other)
        with open(other + ".part", "wb") as f:
            f.write(b"x" * (other_size // 2))
        again = cluster.ctl("archive", "pull", "arch", pulled, check=False, timeout_s=600)
        checks.check(again.returncode == 0, f"second pull: rc {again.returncode}: {again.stderr}")
        checks.check(sha256(big) == sha256(on_fetchers[os.path.basename(big)]) and
                     sha256(other) == sha256(on_fetchers[os.path.basename(other)]),
                     "resumed or corrupt files do not match the fetchers' after the second pull")
        summary = [l for l in again.stdout.splitlines() if l.startswith("pulled ")]
        want = (size - size // 2) + (other_size - other_size // 2) + other_size
        checks.check(summary and f"pulled 2 files ({want} bytes)" in summary[0],
                     f"second pull: expected 2 files and {want} bytes (the rest of one file, "
                     f"and a corrupt half refetched in full): {again.stdout[-600:]}")
        checks.check("is not the listed" in again.stderr,
                     f"the corrupt part was not reported: {again.stderr[-600:]}")
        wrong = work("wrong.token")
        with open(wrong, "w") as f:
            f.write("x" * 32)
        refused = subprocess.run([args.crawlctl, "--server", cluster.admin, "--token-file", wrong,
                                  "archive", "list", "arch"], capture_output=True, text=True,
                                 timeout=60)
        checks.check(refused.returncode == 4, f"a wrong token: rc {refused.returncode}")
        print(f"pull: resumed {os.path.basename(big)} from {size // 2} of {size} bytes; "
              f"refetched a corrupt {os.path.basename(other)}; {summary[:1]}", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()
        sim.stop()


# --------------------------------------------------------------------------------- replay

def scenario_replay(args, checks, work):
    if replay.find_chromium() is None:
        check_replay(checks, args.crawler, None, [], work.path, "")  # raises Skipped
    npm.replaywebpage_dir()  # before the crawl: npm trouble fails the test at once
    warc_dir = revisit_crawl(args, work)
    warcs = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))
    wacz_path = work("replay.wacz")
    out = run([args.crawler, "warc", "wacz", "--collection", "replay", "--index-form",
               "compressed", "-o", wacz_path, *warcs])
    if out.returncode != 0:
        raise Fatal(f"crawler warc wacz: {out.stderr}")
    print(out.stdout.strip(), flush=True)
    check_replay(checks, args.crawler, wacz_path, warcs, work.path,
                 os.path.abspath(args.artifacts or work("artifacts")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", required=True,
                        choices=["index", "bad_inputs", "pull", "replay"])
    parser.add_argument("--crawler", required=True)
    parser.add_argument("--websim", required=True)
    parser.add_argument("--crawlerd")
    parser.add_argument("--crawlctl")
    parser.add_argument("--demo", default=os.path.join(HERE, "..", "..", "scripts", "demo.sh"))
    parser.add_argument("--build-dir")
    parser.add_argument("--artifacts")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if args.build_dir is None:  # <build>/tools/crawler/crawler
        args.build_dir = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(args.crawler))))
    scenarios = {"index": scenario_index, "bad_inputs": scenario_bad_inputs,
                 "pull": scenario_pull, "replay": scenario_replay}
    try:
        return run_scenario(args, scenarios, "e2e archive", "e2e-archive",
                            errors=(Fatal, npm.NpmError, replay.ReplayError))
    except Skipped as e:
        print(f"SKIPPED: {e}", flush=True)
        return SKIP


if __name__ == "__main__":
    sys.exit(main())
