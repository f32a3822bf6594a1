#!/usr/bin/env python3
"""Checks bench/standalone/docs_web.py on a small tree of its own: the ground truth is the set of
pages reachable within a host, each host's text differs while its markup and links do not, and
the name, address and listen lines agree (python3 standard library only)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

PAGES = {
    "index.html": '<html><head><title>Start here</title>'
                  '<link rel="next" href="guide/intro.html"></head><body>'
                  '<p>Python is easy &amp; fun.</p><a href="guide/">Guide</a> '
                  '<a href="https://www.python.org/">real web</a> '
                  '<a href="missing.html">gone</a> <a href="#top">top</a>'
                  '<script>var keep = "Letters";</script></body></html>',
    "guide/index.html": '<html><body><p>The guide.</p><a href="../about.html#x">About</a>'
                        '<a href=\'deep.html?q=1\'>query</a></body></html>',
    "guide/intro.html": '<html><body><p>Introduction text.</p></body></html>',
    "about.html": '<html><body><p>About us.</p><a href="index.html">home</a></body></html>',
    "orphan.html": '<html><body><p>No link leads here.</p></body></html>',
    "_static/skip.html": '<html><body><a href="../orphan.html">x</a></body></html>',
}


class DocsWebTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.source = os.path.join(self.tmp.name, "src")
        for path, text in PAGES.items():
            full = os.path.join(self.source, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        self.out = os.path.join(self.tmp.name, "web")
        subprocess.run([sys.executable, os.path.join(HERE, "docs_web.py"), "--source", self.source,
                        "--hosts", "3", "--port", "8123", "--out", self.out],
                       check=True, capture_output=True, text=True)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, *path):
        with open(os.path.join(self.out, *path), encoding="utf-8") as f:
            return f.read()

    def test_truth_is_what_links_reach_within_the_host(self):
        lines = [line.split("\t") for line in self.read("truth.tsv").splitlines()
                 if not line.startswith("#")]
        pages = {url for kind, url in lines if kind == "page"}
        seeds = {url for kind, url in lines if kind == "seed"}
        expected = set()
        for host in ("h0.docs.test", "h1.docs.test", "h2.docs.test"):
            for path in ("/index.html", "/guide/", "/guide/intro.html", "/about.html"):
                expected.add(f"http://{host}{path}")
        # Not: the real web, a missing file, a URL with a query, a page no link reaches, and
        # the pages of _static (not exported).
        self.assertEqual(pages, expected)
        self.assertEqual(seeds, {f"http://h{i}.docs.test/index.html" for i in range(3)})
        self.assertEqual(self.read("seeds.txt").split(),
                         [f"http://h{i}.docs.test:8123/index.html" for i in range(3)])

    def test_each_host_has_its_own_text_and_the_same_markup(self):
        original = self.read("export", "h0.docs.test", "index.html")
        self.assertEqual(original, PAGES["index.html"])
        other = self.read("export", "h1.docs.test", "index.html")
        third = self.read("export", "h2.docs.test", "index.html")
        self.assertNotEqual(other, original)
        self.assertNotEqual(other, third)
        self.assertEqual(len(other), len(original))
        for kept in ('<a href="guide/">', '<link rel="next" href="guide/intro.html">', "&amp;",
                     '<a href="https://www.python.org/">', 'var keep = "Letters";'):
            self.assertIn(kept, other)
        self.assertNotIn("Python is easy", other)
        self.assertFalse(os.path.exists(os.path.join(self.out, "export", "h1.docs.test",
                                                     "_static")))

    def test_names_addresses_and_listen_lines_agree(self):
        self.assertEqual(self.read("hosts").splitlines(),
                         ["127.0.1.1 h0.docs.test", "127.0.1.2 h1.docs.test",
                          "127.0.1.3 h2.docs.test"])
        self.assertEqual(self.read("listen").splitlines(),
                         ["listen 127.0.1.1:8123;", "listen 127.0.1.2:8123;",
                          "listen 127.0.1.3:8123;"])


if __name__ == "__main__":
    unittest.main()
