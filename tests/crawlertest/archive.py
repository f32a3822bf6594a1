"""Checks of archive delivery (docs/archive.md) shared by the e2e archive tests
(tests/e2e/archive_test.py) and the Kubernetes test: CDXJ lines against warcio.js's index, WACZ
packages read back, records counted by an independent reader, and a WACZ replayed in
ReplayWeb.page in headless Chromium (crawlertest.replay).

npm packages (warcio, replaywebpage) come from the checked cache of crawlertest.npm. Python 3
standard library only.
"""

import collections
import gzip
import hashlib
import json
import os
import random
import subprocess
import zipfile

from crawlertest import npm, replay
from crawlertest.e2e import Fatal

# Pages of a package's page list a replay check samples.
REPLAY_SAMPLE = 20
TOOL_TIMEOUT_S = 300


class Skipped(Exception):
    """A replay cannot run here (Chromium absent or not starting)."""


def run(cmd, timeout_s=TOOL_TIMEOUT_S, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, **kwargs)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def warcio_cdxj(cli, warc):
    """warcio.js's CDXJ lines of one file, sorted bytewise."""
    out = run(["node", cli, "cdx-index", warc])
    if out.returncode != 0:
        raise Fatal(f"warcio cdx-index {warc}: {out.stderr.strip()[-1000:]}")
    return sorted(l for l in out.stdout.splitlines() if l.strip())


def fields(line):
    """(key, timestamp, offset, length, digest) of a CDXJ line: what must agree."""
    key, ts, data = line.split(" ", 2)
    j = json.loads(data)
    return key, ts, str(j.get("offset")), str(j.get("length")), j.get("digest")


def compare_with_warcio(checks, cli, warc, ours, what):
    """Our index lines of `warc` against warcio.js's; returns (lines, differing, identical)."""
    theirs = warcio_cdxj(cli, warc)
    ours_f = sorted(fields(l) for l in ours)
    theirs_f = sorted(fields(l) for l in theirs)
    differing = sum(a != b for a, b in zip(ours_f, theirs_f)) + abs(len(ours_f) - len(theirs_f))
    identical = sum(a == b for a, b in zip(sorted(ours), theirs))
    checks.check(differing == 0,
                 f"{what} {os.path.basename(warc)}: {differing} of {len(theirs)} lines differ from "
                 f"warcio.js's in key, timestamp, offset, length or digest (first: "
                 f"{next(((a, b) for a, b in zip(ours_f, theirs_f) if a != b), None)})")
    return len(theirs), differing, identical


def read_lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def check_wacz(checks, path, what):
    """A WACZ that Python's zipfile reads, whose datapackage.json hashes match its entries.
    Returns (ZipFile, datapackage)."""
    z = zipfile.ZipFile(path)
    checks.check(z.testzip() is None, f"{what}: a corrupt entry")
    package = json.loads(z.read("datapackage.json"))
    checks.check(package.get("wacz_version") == "1.1.1", f"{what}: wacz_version {package}")
    for r in package["resources"]:
        data = z.read(r["path"])
        checks.check("sha256:" + hashlib.sha256(data).hexdigest() == r["hash"] and
                     len(data) == r["bytes"], f"{what}: {r['path']} does not match its hash")
        checks.check(z.getinfo(r["path"]).compress_type == zipfile.ZIP_STORED,
                     f"{what}: {r['path']} is compressed")
    digest = json.loads(z.read("datapackage-digest.json"))
    checks.check(digest["hash"] == "sha256:" + hashlib.sha256(z.read("datapackage.json")).hexdigest(),
                 f"{what}: datapackage-digest.json does not match")
    return z, package


def record_ids(paths):
    out = run(["node", npm.warcio_cli(), "index", *paths, "--fields",
               "warc-record-id,warc-type"])
    if out.returncode != 0:
        raise Fatal(f"warcio index: {out.stderr.strip()[-1000:]}")
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def index_entries(z):
    """The WACZ's index lines as (key, ts, json), from either index form."""
    names = z.namelist()
    if "indexes/index.cdxj" in names:
        text = z.read("indexes/index.cdxj").decode()
    else:
        data = z.read("indexes/index.cdx.gz")
        text = ""
        for line in z.read("indexes/index.idx").decode().splitlines()[1:]:
            j = json.loads(line[line.index(" {") + 1:])
            text += gzip.decompress(data[j["offset"]:j["offset"] + j["length"]]).decode()
    out = []
    for line in text.splitlines():
        key, ts, data = line.split(" ", 2)
        out.append((key, ts, json.loads(data)))
    return out


def check_replay(checks, crawler, wacz_path, warcs, workdir, artifacts, require_revisit=True):
    """Opens `wacz_path` (made of `warcs`) in ReplayWeb.page in headless Chromium: REPLAY_SAMPLE
    pages of its page list must show their archived text, and a revisit record (at a time of
    its own) must replay its original's content; screenshots go to `artifacts`. Skipped when
    Chromium is absent or does not start. Returns (pages shown, pages sampled)."""
    chromium = replay.find_chromium()
    if chromium is None:
        raise Skipped("no Chromium (Debian package chromium-headless-shell or chromium; "
                      "scripts/install-deps.sh installs it)")
    rwp = npm.replaywebpage_dir()
    z, _ = check_wacz(checks, wacz_path, "replayed WACZ")
    pages = [json.loads(l) for l in z.read("pages/pages.jsonl").decode().splitlines()[1:]]
    by_name = {os.path.basename(w): w for w in warcs}
    captures = collections.defaultdict(list)
    for key, ts, j in index_entries(z):
        captures[j["url"]].append((ts, j))

    def original(url, ts=None):
        """(timestamp, index entry) of the HTML response that the capture of `url` at `ts` (the
        first one if None) shows: the response itself, or the original a revisit refers to."""
        for cts, j in sorted(captures[url], key=lambda c: (c[0], c[1].get("mime") != "text/html")):
            if ts is not None and cts != ts:
                continue
            if j.get("mime") == "text/html":
                return cts, j
            if j.get("mime") == "warc/revisit":
                fields, _ = replay.read_record(by_name[j["filename"]], int(j["offset"]),
                                                       int(j["length"]))
                target = fields.get("warc-refers-to-target-uri", "")
                date = fields.get("warc-refers-to-date", "")
                stamp = date.replace("-", "").replace(":", "").replace("T", "")[:14]
                if target and (target, stamp) != (url, cts):
                    return original(target, stamp)
        raise Fatal(f"no response for {url} at {ts} in the package (a revisit of a capture the "
                    f"package does not hold?)")

    def expected(url, j):
        return replay.expected_texts(crawler, by_name[j["filename"]], int(j["offset"]),
                                             int(j["length"]), url, workdir)

    sample = random.Random(35).sample(pages, min(REPLAY_SAMPLE, len(pages)))
    checks.check(len(sample) == REPLAY_SAMPLE, f"only {len(pages)} pages to sample")
    # A revisit at a time of its own (no response of its URL in the same second), whose
    # original the package holds.
    revisit = None
    for url, caps in sorted(captures.items()):
        response_ts = {ts for ts, j in caps if j.get("mime") == "text/html"}
        for ts, j in caps:
            if revisit or j.get("mime") != "warc/revisit" or j.get("status") != "200" or \
                    ts in response_ts:
                continue
            try:
                original(url, ts)
                revisit = (url, ts)
            except Fatal:
                pass
    if require_revisit:
        checks.check(revisit is not None, "no revisit record at a time of its own to replay")
    os.makedirs(artifacts, exist_ok=True)
    chrome = replay.Chrome(chromium, workdir)
    shown = 0
    reloads = 0
    try:
        try:
            product = chrome.start()
        except replay.ChromeUnavailable as e:
            raise Skipped(str(e))
        print(f"replay: {product}, ReplayWeb.page from {rwp}", flush=True)
        with replay.ReplayServer(rwp, wacz_path, os.path.join(workdir, "site")) as server:
            for i, page in enumerate(sample):
                ts = page["ts"].replace("-", "").replace(":", "").replace("T", "")[:14]
                _, j = original(page["url"], ts)
                try:
                    _, _, page_reloads = replay.replay_page(chrome, server, page["url"], ts,
                                                            expected(j["url"], j))
                    reloads += page_reloads
                    shown += 1
                    if i == 0:
                        chrome.screenshot(os.path.join(artifacts, "replayed-page.png"))
                except replay.ReplayError as e:
                    checks.fail(str(e))
            if revisit is not None:
                url, ts = revisit
                cts, j = original(url, ts)
                try:
                    frame, seconds, page_reloads = replay.replay_page(
                        chrome, server, url, ts, expected(j["url"], j))
                    reloads += page_reloads
                    checks.check(f"/{ts}mp_/" in frame,
                                 f"the revisit of {url} at {ts} replayed another capture: {frame}")
                    chrome.screenshot(os.path.join(artifacts, "replayed-revisit.png"))
                    print(f"replay: revisit of {url} at {ts} (original {cts}) shows the archived "
                          f"text in {seconds:.1f} s", flush=True)
                except replay.ReplayError as e:
                    checks.fail(f"revisit: {e}")
        checks.check(shown == len(sample), f"{shown} of {len(sample)} sampled pages replayed")
        print(f"replay: {shown} of {len(sample)} sampled pages show their archived text "
              f"({reloads} reloads of a replay frame the service worker did not serve); "
              f"screenshots in {artifacts}", flush=True)
    finally:
        chrome.close()
    return shown, len(sample)
