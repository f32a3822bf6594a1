#!/usr/bin/env python3
"""The article web of bench/standalone/run.sh (--web docs): real documentation pages on many hosts
reached through real name resolution (python3 standard library only).

Writes, from a tree of HTML documentation (Debian's python3.11-doc by default):

  DIR/export/HOST/...        the tree's HTML files only, per host (nginx's root is export/$host)
  DIR/truth.tsv              the ground truth in websim's format: `seed` and `page` lines, the
                             pages reachable from each host's /index.html by <a href> or
                             <link href> within the host, whose files exist
  DIR/seeds.txt              http://HOST:PORT/index.html, one per host
  DIR/hosts                  /etc/hosts lines, one distinct loopback address per host
  DIR/listen                 nginx listen lines, one per address

Hosts are h0.docs.test, h1.docs.test, ...; host i has the address
127.0.(1 + i // 250).(1 + i % 250).
Only HTML is exported: style sheets, scripts, images and sources get a 404 from both tools alike,
so every 200 a tool gets is a page of the truth, and the rows compare the same pages.

Each host's copy has its own text: the letters of the text between tags (not the tags and their
attributes, entities, comments, scripts or styles) go through a permutation of the alphabet drawn for the host (host 0
keeps the original). The pages keep their length, markup, links and word shapes, and no host is a
mirror of another: with the same text on every host, a crawler that detects duplicates would
rightly follow only one copy's links.

The pages link to the real web too: the tools must be kept to the docs hosts without looking
those names up (the crawler by --allow-host-suffix; wget2 by not spanning hosts, as with
--span-hosts it looks up and asks robots.txt of every host it sees a link to, --domains
notwithstanding).
"""

import argparse
import os
import posixpath
import random
import re
import string
import sys
from html import unescape
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

DOMAIN = "docs.test"
# Markup, in the order it must be recognised: scripts and styles whole, tags, entities.
MARKUP = re.compile(r"(<script\b.*?</script>|<style\b.*?</style>|<!--.*?-->|<[^>]*>|&#?\w+;)",
                    re.S | re.I)
# The href of a link tag (Sphinx writes well-formed markup; comments hold no links).
HREF = re.compile(r"""<(?:a|link|area)\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
                  re.I)
# Between the text parts of a page while they are translated at once (absent from the pages).
SEPARATOR = "\x00"


def host_name(i):
    return f"h{i}.{DOMAIN}"


def host_address(i):
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def letter_table(i):
    """str.translate table of host i: the identity for host 0, else a permutation of a-z (and
    the same one of A-Z)."""
    if i == 0:
        return {}
    lower = list(string.ascii_lowercase)
    random.Random(i).shuffle(lower)
    return str.maketrans(string.ascii_lowercase + string.ascii_uppercase,
                         "".join(lower) + "".join(lower).upper())


def page_links(root, path):
    """The in-site targets of one exported page, as URL paths (the fragment dropped)."""
    with open(file_of(root, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    base = "http://site" + path
    out = []
    for m in HREF.finditer(text):
        href = unescape(next(g for g in m.groups() if g is not None)).strip()
        if not href:
            continue
        url, _ = urldefrag(urljoin(base, href))
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.netloc != "site" or parts.query:
            continue
        out.append(parts.path or "/")
    return out


def file_of(root, url_path):
    """The exported file a URL path names (a directory's index.html), or None."""
    rel = posixpath.normpath(unquote(url_path)).lstrip("/")
    full = os.path.join(root, rel)
    if url_path.endswith("/") or os.path.isdir(full):
        full = os.path.join(full, "index.html")
    return full if os.path.isfile(full) else None


def reachable(root):
    """URL paths reachable from /index.html whose files exist, in discovery order."""
    seen = {"/index.html"}
    order = ["/index.html"]
    i = 0
    while i < len(order):
        path = order[i]
        i += 1
        if not file_of(root, path).endswith(".html"):
            continue
        for target in page_links(root, path):
            if target not in seen and file_of(root, target) is not None:
                seen.add(target)
                order.append(target)
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="/usr/share/doc/python3.11/html",
                    help="tree of HTML documentation (default: Debian's python3.11-doc)")
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--port", type=int, required=True, help="the port nginx listens on")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.source, "index.html")):
        sys.exit(f"docs_web: no {args.source}/index.html (apt-get install python3.11-doc)")
    if not 0 < args.hosts <= 250 * 250:
        sys.exit("docs_web: --hosts must be in 1..62500")

    export = os.path.join(args.out, "export")
    # Each page split once into its markup and its text, the text parts joined by SEPARATOR.
    sources = {}
    for dirpath, _, files in os.walk(args.source):
        rel = os.path.relpath(dirpath, args.source)
        if rel.split(os.sep)[0].startswith("_"):
            continue  # _static, _sources, _images, _downloads: no pages
        for name in files:
            if name.endswith(".html"):
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                parts = MARKUP.split(text)
                if any(SEPARATOR in p for p in parts):
                    sys.exit(f"docs_web: {name} holds a NUL character")
                sources[os.path.normpath(os.path.join(rel, name))] = (
                    parts[1::2], SEPARATOR.join(parts[0::2]))
    for i in range(args.hosts):
        root = os.path.join(export, host_name(i))
        table = letter_table(i)
        for rel, (markup, text) in sources.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            words = text.translate(table).split(SEPARATOR)
            page = [None] * (len(words) + len(markup))
            page[0::2] = words
            page[1::2] = markup
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write("".join(page))

    html = os.path.join(export, host_name(0))
    pages = reachable(html)
    with open(os.path.join(args.out, "truth.tsv"), "w", encoding="utf-8") as truth, \
         open(os.path.join(args.out, "seeds.txt"), "w", encoding="utf-8") as seeds, \
         open(os.path.join(args.out, "hosts"), "w", encoding="utf-8") as hosts, \
         open(os.path.join(args.out, "listen"), "w", encoding="utf-8") as listen:
        truth.write(f"# docs web: {args.hosts} hosts x {len(pages)} pages of {args.source}\n")
        for i in range(args.hosts):
            name = host_name(i)
            seeds.write(f"http://{name}:{args.port}/index.html\n")
            hosts.write(f"{host_address(i)} {name}\n")
            listen.write(f"listen {host_address(i)}:{args.port};\n")
            truth.write(f"seed\thttp://{name}/index.html\n")
            for path in pages:
                truth.write(f"page\thttp://{name}{path}\n")
    sizes = sorted(os.path.getsize(file_of(html, p)) for p in pages)
    print(f"{len(pages)} pages per host, median {sizes[len(sizes) // 2]:,} bytes, "
          f"total {sum(sizes) / 1e6:.1f} MB per host")


if __name__ == "__main__":
    main()
