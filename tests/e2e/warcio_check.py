#!/usr/bin/env python3
"""Independent-reader check of the crawler's WARC output with `warcio` (webrecorder's reader,
from the npm registry), compared with the crawl's own log.

Two ways to run it:
  warcio_check.py --crawler BIN --websim BIN
      runs a small crawl of its own (20 hosts x 20 pages on loopback, WARC files rotated at
      64 KiB so that rotation is exercised) and checks its output (CTest: e2e.warcio);
  warcio_check.py --warc-dir DIR --crawl-log FILE [--stats-json FILE]
      checks the output of any finished crawl (not one interrupted by SIGKILL: its stdio-buffered
      log lines are lost while its WARC records are not).

warcio@2 is installed into a temporary directory with npm (the npm cache may be used). If npm
or the registry is unavailable the check FAILS: it never skips.

What is checked:
  - warcio's CLI (`index`, strict headers) reads every record of every file and exits 0;
  - gzip per record: each record warcio reports is exactly one gzip member, back to back, and
    decompresses to one WARC/1.1 record whose Content-Length, WARC-Block-Digest and (responses)
    WARC-Payload-Digest match its bytes;
  - every file starts with its one warcinfo record; files rotate by size (no record starts at or
    beyond the size limit; every file but the last reached it) when the limit is known;
  - record types are warcinfo, request, response, metadata, revisit only;
  - response + revisit records == crawl-log lines with an HTTP status > 0 (robots.txt fetches
    included), as multisets of target URIs;
  - every response/revisit has a request record with the same target, concurrent to it, and
    every metadata record (outlinks) refers to a response of its target;
  - total records == the stats JSON's warc_records, files == its warc_files, their bytes ==
    its warc_bytes.
"""

import argparse
import base64
import collections
import glob
import hashlib
import json
import os
import subprocess
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from crawlertest.e2e import (Checks, Crawl, Fatal, Websim, WorkDir, crawl_command,  # noqa: E402
                         read_crawl_log, read_stats)

WARCIO_SPEC = "warcio@2"
NPM_TIMEOUT_S = 300
WARCIO_TIMEOUT_S = 300
# Rotation limit of the check's own crawl (bytes of gzip data per file).
OWN_CRAWL_MAX_FILE_BYTES = 64 * 1024
FIELDS = ["filename", "offset", "length", "warc-type", "warc-target-uri", "warc-record-id",
          "warc-concurrent-to", "warc-refers-to", "warc-profile", "http:status"]
KNOWN_TYPES = {"warcinfo", "request", "response", "metadata", "revisit"}


def install_warcio(work):
    """Returns the path of warcio's CLI script; Fatal if npm cannot provide it."""
    prefix = work("npm")
    os.makedirs(prefix)
    cmd = ["npm", "install", "--prefix", prefix, WARCIO_SPEC, "--no-audit", "--no-fund",
           "--no-update-notifier", "--loglevel=error"]
    try:
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=NPM_TIMEOUT_S)
    except FileNotFoundError:
        raise Fatal("npm is not installed: the WARC check needs it (it does not skip)")
    except subprocess.TimeoutExpired:
        raise Fatal(f"npm install {WARCIO_SPEC} took more than {NPM_TIMEOUT_S} s")
    cli = os.path.join(prefix, "node_modules", "warcio", "dist", "cli.js")
    if result.returncode != 0 or not os.path.exists(cli):
        raise Fatal(f"npm install {WARCIO_SPEC} failed ({result.returncode}): "
                    f"{result.stderr.strip()[-2000:]}")
    with open(os.path.join(prefix, "node_modules", "warcio", "package.json")) as f:
        print(f"  warcio {json.load(f)['version']} installed", flush=True)
    return cli


def warcio_index(cli, files):
    """One dict per record, in file order, as warcio's CLI reports them."""
    # Files before --fields: the array option would take them as field names.
    cmd = ["node", cli, "index", *files, "--fields", ",".join(FIELDS)]
    try:
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=WARCIO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Fatal(f"warcio index took more than {WARCIO_TIMEOUT_S} s")
    if result.returncode != 0:
        raise Fatal(f"warcio index failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def warc_digest(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def parse_fields(text):
    fields = {}
    for line in text.split("\r\n"):
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return fields


def check_member(checks, path, data, offset, length):
    """The bytes warcio attributes to one record: one gzip member holding one WARC/1.1 record
    whose declared length and digests match."""
    where = f"{os.path.basename(path)}@{offset}"
    member = data[offset:offset + length]
    if not checks.check(member[:2] == b"\x1f\x8b", f"{where}: record is not a gzip member"):
        return
    d = zlib.decompressobj(wbits=31)
    try:
        record = d.decompress(member) + d.flush()
    except zlib.error as e:
        checks.fail(f"{where}: gzip member does not decompress: {e}")
        return
    checks.check(d.eof and not d.unused_data,
                 f"{where}: the record's bytes are not exactly one gzip member "
                 f"(eof {d.eof}, {len(d.unused_data)} bytes after it)")
    head, sep, rest = record.partition(b"\r\n\r\n")
    if not checks.check(sep and head.startswith(b"WARC/1.1\r\n"),
                        f"{where}: not a WARC/1.1 record: {record[:40]!r}"):
        return
    fields = parse_fields(head.decode("utf-8", "replace").split("\r\n", 1)[1])
    length_field = int(fields.get("content-length", "-1"))
    block = rest[:length_field]
    checks.check(length_field >= 0 and rest[length_field:] == b"\r\n\r\n",
                 f"{where}: Content-Length {length_field} does not end the block before CRLF CRLF "
                 f"(block + trailer is {len(rest)} bytes)")
    if "warc-block-digest" in fields:
        checks.check(fields["warc-block-digest"] == warc_digest(block),
                     f"{where}: WARC-Block-Digest mismatch")
    if fields.get("warc-type") == "response" and "warc-payload-digest" in fields:
        http_head, _, body = block.partition(b"\r\n\r\n")
        if b"transfer-encoding" not in http_head.lower():
            checks.check(fields["warc-payload-digest"] == warc_digest(body),
                         f"{where}: WARC-Payload-Digest mismatch")


def check_files(checks, files, records, max_file_bytes):
    by_file = collections.defaultdict(list)
    for r in records:
        by_file[os.path.basename(r["filename"])].append(r)
    for path in files:
        name = os.path.basename(path)
        recs = by_file.get(name, [])
        if not checks.check(recs, f"{name}: warcio read no record"):
            continue
        with open(path, "rb") as f:
            data = f.read()
        # Back to back from offset 0 to the end of the file: nothing unread, nothing shared.
        position = 0
        for r in recs:
            if not checks.check(r["offset"] == position,
                                f"{name}: record at {r['offset']}, expected {position}"):
                break
            check_member(checks, path, data, r["offset"], r["length"])
            position = r["offset"] + r["length"]
        checks.check(position == len(data),
                     f"{name}: records end at {position}, the file has {len(data)} bytes")
        types = [r.get("warc-type") for r in recs]
        checks.check(types[0] == "warcinfo" and types.count("warcinfo") == 1,
                     f"{name}: {types.count('warcinfo')} warcinfo records, first record "
                     f"{types[0]}")
        if max_file_bytes:
            late = [r["offset"] for r in recs if r["offset"] >= max_file_bytes]
            checks.check(not late, f"{name}: records start beyond the rotation size "
                                   f"{max_file_bytes}: {late[:3]}")
            if path != files[-1]:
                checks.check(len(data) >= max_file_bytes,
                             f"{name}: rotated at {len(data)} bytes, before the limit "
                             f"{max_file_bytes}")


def check_against_log(checks, records, log_lines):
    types = collections.Counter(r.get("warc-type") for r in records)
    checks.check(set(types) <= KNOWN_TYPES, f"unexpected record types: "
                                            f"{set(types) - KNOWN_TYPES}")
    captures = [r for r in records if r.get("warc-type") in ("response", "revisit")]
    logged = collections.Counter(l.url for l in log_lines if l.status > 0)
    archived = collections.Counter(r.get("warc-target-uri") for r in captures)
    checks.check(len(captures) == sum(logged.values()),
                 f"{len(captures)} response+revisit records, {sum(logged.values())} crawl-log "
                 f"lines with an HTTP status")
    only_log, only_warc = logged - archived, archived - logged
    checks.check(not only_log and not only_warc,
                 f"target URIs differ: {sum(only_log.values())} only in the log "
                 f"(e.g. {list(only_log)[:3]}), {sum(only_warc.values())} only in the WARC "
                 f"(e.g. {list(only_warc)[:3]})")
    statuses = collections.Counter((l.url, l.status) for l in log_lines if l.status > 0)
    archived_statuses = collections.Counter((r.get("warc-target-uri"), r.get("http:status"))
                                            for r in captures)
    checks.check(statuses == archived_statuses,
                 f"HTTP statuses of the records differ from the log's: "
                 f"{list((archived_statuses - statuses).items())[:3]}")

    ids = collections.Counter(r.get("warc-record-id") for r in records)
    repeated_ids = [i for i, n in ids.items() if n > 1 or not i]
    checks.check(not repeated_ids, f"missing or repeated WARC-Record-IDs: {repeated_ids[:3]}")
    capture_by_id = {r.get("warc-record-id"): r for r in captures}
    requests_by_response = collections.defaultdict(list)
    for r in records:
        if r.get("warc-type") == "request":
            requests_by_response[r.get("warc-concurrent-to")].append(r)
    without_request = []
    for c in captures:
        reqs = requests_by_response.get(c.get("warc-record-id"), [])
        if len(reqs) != 1 or reqs[0].get("warc-target-uri") != c.get("warc-target-uri"):
            without_request.append(c.get("warc-target-uri"))
    checks.check(not without_request,
                 f"{len(without_request)} of {len(captures)} response/revisit records have no "
                 f"request record (same target, WARC-Concurrent-To the response), e.g. "
                 f"{without_request[:5]}")
    orphans = [r for r in records if r.get("warc-type") == "request"
               and r.get("warc-concurrent-to") not in capture_by_id]
    checks.check(not orphans, f"{len(orphans)} request records concurrent to no response, e.g. "
                              f"{[r.get('warc-target-uri') for r in orphans[:3]]}")
    bad_metadata = [r.get("warc-target-uri") for r in records
                    if r.get("warc-type") == "metadata"
                    and capture_by_id.get(r.get("warc-concurrent-to"), {})
                    .get("warc-target-uri") != r.get("warc-target-uri")]
    checks.check(not bad_metadata, f"{len(bad_metadata)} metadata records not concurrent to a "
                                   f"response of their target, e.g. {bad_metadata[:3]}")
    fetched_with_links = sum(1 for l in log_lines if l.outcome == "fetched" and l.status == 200
                             and not l.url.endswith("/robots.txt"))
    checks.check(types["metadata"] > 0, "no metadata (outlinks) record")
    for r in records:
        if r.get("warc-type") == "revisit":
            checks.check(r.get("warc-profile", "").startswith("http://netpreserve.org/warc/1.1/"
                                                              "revisit/"),
                         f"revisit of {r.get('warc-target-uri')} has profile "
                         f"{r.get('warc-profile')}")
    return types, fetched_with_links


def check_output(checks, cli, warc_dir, crawl_log, stats_json, max_file_bytes):
    still_open = glob.glob(os.path.join(warc_dir, "*.open"))
    checks.check(not still_open, f"WARC files left open: {still_open}")
    files = sorted(glob.glob(os.path.join(warc_dir, "*.warc.gz")))
    if not checks.check(files, f"no *.warc.gz in {warc_dir}"):
        return
    if stats_json:
        stats = read_stats(stats_json)
        listed = stats.get("warc_files", [])
        checks.check(sorted(os.path.basename(f) for f in listed) ==
                     [os.path.basename(f) for f in files],
                     f"stats warc_files {listed} differ from the files in {warc_dir}")
        # Serial numbers order the files of one writer (name: prefix-time-serial-pid).
        if listed:
            files = [os.path.join(warc_dir, os.path.basename(f)) for f in listed]
    records = warcio_index(cli, files)
    print(f"  warcio read {len(records)} records from {len(files)} files", flush=True)
    check_files(checks, files, records, max_file_bytes)
    log_lines, malformed = read_crawl_log(crawl_log)
    checks.check(not malformed, f"crawl log: {len(malformed)} malformed lines")
    types, pages = check_against_log(checks, records, log_lines)
    if stats_json:
        checks.check(stats.get("warc_records") == len(records),
                     f"stats warc_records {stats.get('warc_records')}, warcio read {len(records)}")
        on_disk = sum(os.path.getsize(f) for f in files)
        checks.check(stats.get("warc_bytes") == on_disk,
                     f"stats warc_bytes {stats.get('warc_bytes')}, the files hold {on_disk}")
    print(f"warcio: {len(files)} files, {len(records)} records "
          f"({', '.join(f'{t} {n}' for t, n in sorted(types.items()))}); "
          f"{sum(1 for l in log_lines if l.status > 0)} crawl-log lines with a status "
          f"({pages} pages)", flush=True)


def own_crawl(args, checks, work):
    """A small crawl whose output the check reads. Returns (warc dir, crawl log, stats json)."""
    sim = Websim(args.websim, work, hosts=20, pages=20, seed=21)
    crawl = None
    config = work("crawl.yaml")
    with open(config, "w") as f:
        f.write(f"warc_max_file_bytes: {OWN_CRAWL_MAX_FILE_BYTES}\n")
    try:
        sim.start()
        cmd = crawl_command(args.crawler, sim.seeds_file, work("data"), sim.port,
                            work("stats.json"), 20, ["--config", config])
        crawl = Crawl(cmd, work("crawl.stderr"))
        rc = crawl.wait(300)
    finally:
        if crawl is not None:
            crawl.kill()
        sim.stop()
    checks.check(sim.exit_code == 0, f"websim exited with {sim.exit_code}: {sim.stderr()}")
    if not checks.check(rc == 0, f"crawl exited with {rc}: {crawl.stderr()}"):
        raise Fatal("no crawl output to check")
    return work("data", "warc"), work("data", "crawl.log"), work("stats.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawler")
    parser.add_argument("--websim")
    parser.add_argument("--warc-dir")
    parser.add_argument("--crawl-log")
    parser.add_argument("--stats-json")
    parser.add_argument("--max-file-bytes", type=int, default=0,
                        help="rotation size of an existing crawl's files (0: not checked)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    own = bool(args.crawler and args.websim)
    if own == bool(args.warc_dir and args.crawl_log):
        parser.error("give either --crawler and --websim, or --warc-dir and --crawl-log")
    checks = Checks("e2e warcio")
    work = WorkDir("e2e-warcio-", keep=args.keep)
    try:
        cli = install_warcio(work)
        if own:
            warc_dir, crawl_log, stats_json = own_crawl(args, checks, work)
            max_file_bytes = OWN_CRAWL_MAX_FILE_BYTES
        else:
            warc_dir, crawl_log, stats_json = args.warc_dir, args.crawl_log, args.stats_json
            max_file_bytes = args.max_file_bytes
        check_output(checks, cli, warc_dir, crawl_log, stats_json, max_file_bytes)
    except Fatal as e:
        checks.fail(str(e))
    rc = checks.exit_code()
    work.finish(failed=rc != 0)
    return rc


if __name__ == "__main__":
    sys.exit(main())
