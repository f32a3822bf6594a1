#!/usr/bin/env python3
"""docs/websim.md's command-line table against `websim --help`: every flag websim takes has a
row, every row names a flag websim takes, and where --help shows a default (`--hosts INT=20`)
the row's default column gives the same value. Python 3 standard library only.

Usage: websim_flags_test.py --websim PATH --docs DIR
"""

import argparse
import os
import re
import subprocess
import sys

# A CLI11 option line: "  --hosts INT=20   ...", "  --noise,--no-noise{false}", "  -h,--help".
HELP_OPTION = re.compile(r"^  (?:-\w,)?(--[\w-]+)(?:,(--[\w-]+))?(?:\{\w+\})?"
                         r"(?: [A-Z]+(?::[^=\s]*(?: in \[[^\]]*\])?)?(?:=(\S+))?)?")


def documented_flags(docs_dir):
    """flag -> default cell of the table under "## Command line"."""
    with open(os.path.join(docs_dir, "websim.md")) as f:
        text = f.read()
    section = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if not line.startswith("| `--"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        for flag in re.findall(r"`(--[\w-]+)", cells[0]):
            rows[flag] = cells[1]
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--websim", required=True)
    parser.add_argument("--docs", required=True)
    args = parser.parse_args()
    out = subprocess.run([args.websim, "--help"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        print(f"FAIL: websim --help exited {out.returncode}: {out.stderr}")
        return 1
    helped = {}
    for line in out.stdout.splitlines():
        m = HELP_OPTION.match(line)
        if m and m.group(1) != "--help":
            for flag in filter(None, (m.group(1), m.group(2))):
                helped[flag] = m.group(3)
    rows = documented_flags(args.docs)
    failures = []
    if len(helped) < 20:
        failures.append(f"only {len(helped)} flags read from --help: {out.stdout}")
    for flag in sorted(set(helped) - set(rows)):
        failures.append(f"{flag}: websim takes it, docs/websim.md has no row")
    for flag in sorted(set(rows) - set(helped)):
        failures.append(f"{flag}: documented, websim does not take it")
    for flag, default in sorted(helped.items()):
        stated = (rows.get(flag, "").replace("`", "").split() or [""])[0]
        if default is not None and flag in rows and stated != default:
            failures.append(f"{flag}: --help says {default}, the doc says {rows[flag]}")
    for failure in failures:
        print(f"FAIL: {failure}")
    if failures:
        return 1
    print(f"websim flags: {len(helped)} flags, each documented with its default")
    return 0


if __name__ == "__main__":
    sys.exit(main())
