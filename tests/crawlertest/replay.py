"""Replay of a WACZ in ReplayWeb.page (npm `replaywebpage`) in headless Chromium, for the
archive tests (tests/e2e/archive_test.py) and the Kubernetes test.

- ReplayServer: a static HTTP server on 127.0.0.1 (an ephemeral port) serving ReplayWeb.page's
  ui.js and sw.js under /replay/, an embedding page, and the WACZ with HTTP range requests,
  which ReplayWeb.page uses to read the package's index and records without fetching it whole.
- Chrome: Debian's headless Chromium driven over the DevTools protocol on a pipe
  (--remote-debugging-pipe: JSON messages ending in NUL on file descriptors 3 and 4), so no
  port is opened and no WebSocket library is needed. Flags keep it off the network: no
  background networking, component updates, sync or QUIC, a fresh profile.
- replay_page(): loads one archived URL (at a timestamp) through the embedding page and reads
  the text of the replayed document from the DOM (through the component's shadow roots and
  same-origin frames); expected_texts() takes what that text must contain from the archived
  response itself (the WARC record at the index's offset, via `crawler inspect links --text`).

Python 3 standard library only. Every wait is bounded.
"""

import base64
import gzip
import http.server
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
import zlib

CHROME_START_TIMEOUT_S = 60
COMMAND_TIMEOUT_S = 60

EMBED_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><script src="/replay/ui.js"></script></head>
<body style="margin:0">
<replay-web-page id="rwp" replayBase="/replay/" style="display:block;width:100%;height:100vh">
</replay-web-page>
<script>
const q = new URLSearchParams(location.search);
const el = document.getElementById("rwp");
if (q.get("ts")) el.setAttribute("ts", q.get("ts"));
el.setAttribute("url", q.get("url"));
el.setAttribute("source", q.get("source"));
</script>
</body></html>
"""

# The text of every replayed document the page holds: walks shadow roots and same-origin frames
# (ReplayWeb.page's component -> its app frame -> the replay frame /replay/w/<coll>/<ts>mp_/URL).
FRAMES_JS = r"""(function () {
  const out = [];
  function walk(root) {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === 'IFRAME') {
        try {
          const d = el.contentDocument;
          if (d) {
            out.push({url: d.location.href, text: d.body ? d.body.innerText : ''});
            walk(d);
          }
        } catch (e) { /* another origin: not ours */ }
      }
    }
  }
  walk(document);
  return JSON.stringify(out);
})()"""


class ReplayError(Exception):
    pass


class ChromeUnavailable(Exception):
    """Chromium is not installed or cannot start here (the test then exits 77)."""


def find_chromium():
    for name in ("chromium-headless-shell", "chromium"):
        path = shutil.which(name)
        if path:
            return path
    return None


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with single-range requests (RFC 9110 §14), as ReplayWeb.page reads a WACZ."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "application/javascript", ".wacz": "application/wacz"}

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        header = self.headers.get("Range")
        if not header or not os.path.isfile(path):
            return super().send_head()
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
        size = os.path.getsize(path)
        if not m or (not m.group(1) and not m.group(2)):
            self.send_error(416)
            return None
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:
            start, end = max(0, size - int(m.group(2))), size - 1
        if start >= size or start > end:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        return _Slice(f, end - start + 1)


class _Slice:
    """The part of a file a range asks for, read by copyfile()."""

    def __init__(self, f, length):
        self.f, self.left = f, length

    def read(self, n=-1):
        n = self.left if n < 0 else min(n, self.left)
        data = self.f.read(n)
        self.left -= len(data)
        return data

    def close(self):
        self.f.close()


class ReplayServer:
    """Serves ReplayWeb.page and one WACZ from a directory of its own."""

    def __init__(self, replaywebpage_dir, wacz_path, root):
        self.root = root
        os.makedirs(os.path.join(root, "replay"), exist_ok=True)
        for name in ("ui.js", "sw.js"):
            shutil.copy(os.path.join(replaywebpage_dir, name), os.path.join(root, "replay", name))
        with open(os.path.join(root, "index.html"), "w") as f:
            f.write(EMBED_PAGE)
        self.wacz_name = os.path.basename(wacz_path)
        os.symlink(os.path.abspath(wacz_path), os.path.join(root, self.wacz_name))
        handler = lambda *a, **k: _Handler(*a, directory=root, **k)  # noqa: E731
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def page_url(self, url, ts=None):
        q = {"source": f"/{self.wacz_name}", "url": url}
        if ts:
            q["ts"] = ts
        return f"http://127.0.0.1:{self.port}/index.html?{urllib.parse.urlencode(q)}"


class Chrome:
    """Headless Chromium over the DevTools pipe, one tab."""

    def __init__(self, binary, workdir, window=(1280, 900)):
        self.profile = tempfile.mkdtemp(prefix="chrome-profile-", dir=workdir)
        self.stderr_path = os.path.join(workdir, "chrome.stderr")
        cmd_r, cmd_w = os.pipe()  # ours to write, Chromium's fd 3
        ev_r, ev_w = os.pipe()    # Chromium's fd 4, ours to read
        # Moved to fixed numbers for the shell that puts them at 3 and 4.
        os.dup2(cmd_r, 200)
        os.dup2(ev_w, 201)
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps",
                "--disable-extensions", "--mute-audio", f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe", f"--window-size={window[0]},{window[1]}",
                "about:blank"]
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                ["bash", "-c", 'exec "$@" 3<&200 4>&201 200<&- 201>&-', "chromium", *args],
                pass_fds=(200, 201), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err)
        for fd in (200, 201, cmd_r, ev_w):
            os.close(fd)
        self.w, self.r = cmd_w, ev_r
        self.buf = b""
        self.next_id = 0
        self.session = None

    def stderr(self):
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def _read(self, timeout_s):
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.r], [], [], max(0.0, timeout_s))
            if not ready:
                return None
            data = os.read(self.r, 1 << 20)
            if not data:
                raise ReplayError(f"Chromium closed its pipe: {self.stderr()}")
            self.buf += data
        message, _, self.buf = self.buf.partition(b"\0")
        return json.loads(message)

    def send(self, method, params=None, timeout_s=COMMAND_TIMEOUT_S, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            reply = self._read(deadline - time.monotonic())
            if reply is not None and reply.get("id") == self.next_id:
                if "error" in reply:
                    raise ReplayError(f"{method}: {reply['error']}")
                return reply.get("result", {})
        raise ReplayError(f"{method}: no answer within {timeout_s} s")

    def start(self):
        """Attaches to a fresh tab; ChromeUnavailable when Chromium does not answer."""
        try:
            version = self.send("Browser.getVersion", timeout_s=CHROME_START_TIMEOUT_S,
                                session=False)
        except ReplayError as e:
            raise ChromeUnavailable(f"Chromium did not start: {e}; stderr: {self.stderr()}")
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        return version.get("product", "?")

    def navigate(self, url):
        self.send("Page.navigate", {"url": url})

    def frames(self):
        value = self.send("Runtime.evaluate", {"expression": FRAMES_JS, "returnByValue": True})
        return json.loads(value["result"]["value"])

    def screenshot(self, path):
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self.send("Browser.close", timeout_s=10, session=False)
        except (ReplayError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass


def normalise(text):
    return " ".join(text.split())


# What the static server answers for ReplayWeb.page's /replay/ frame when the app's service
# worker did not take the request: the frame was loaded before the worker controlled the page.
UNSERVED_REPLAY_FRAME = "Directory listing for /replay/"
MAX_RELOADS = 2


def replay_page(chrome, server, url, ts, expected, timeout_s=60):
    """Loads `url` at `ts` in ReplayWeb.page and waits until the replayed document (a frame
    of /replay/w/.../<ts>mp_/<url>) holds every string of `expected`. Returns (frame URL,
    seconds, reloads); ReplayError with what the frames held when it does not within
    `timeout_s`. A replay frame that the service worker did not serve (the static server's
    listing of /replay/ instead: the worker was not yet, or no longer, in control, which a
    loaded machine shows now and then) is loaded again, at most MAX_RELOADS times, as a user
    would reload: the archive is not at fault there, and the page must still show its text."""
    chrome.navigate(server.page_url(url, ts))
    start = time.monotonic()
    want = [normalise(e) for e in expected]
    frames = []
    reloads = 0
    while time.monotonic() - start < timeout_s:
        frames = chrome.frames()
        for frame in frames:
            if "mp_/" not in frame["url"] or not frame["url"].endswith(url):
                continue
            text = normalise(frame["text"])
            if all(w in text for w in want):
                return frame["url"], time.monotonic() - start, reloads
        if reloads < MAX_RELOADS and any(
                normalise(f["text"]).startswith(UNSERVED_REPLAY_FRAME) for f in frames):
            reloads += 1
            chrome.navigate(server.page_url(url, ts))
        time.sleep(0.25)
    seen = [(f["url"][-120:], normalise(f["text"])[:200]) for f in frames]
    raise ReplayError(f"{url} at {ts}: the replayed page did not show {want} within "
                      f"{timeout_s} s; frames: {seen}")


def read_record(warc_path, offset, length):
    """The WARC record (headers dict, block bytes) of the gzip member at offset/length."""
    with open(warc_path, "rb") as f:
        f.seek(offset)
        member = f.read(length)
    data = gzip.decompress(member) if member[:2] == b"\x1f\x8b" else member
    head, _, rest = data.partition(b"\r\n\r\n")
    fields = {}
    for line in head.decode("utf-8", "replace").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return fields, rest[:int(fields.get("content-length", len(rest)))]


def http_body(block):
    """The entity body of an HTTP response block (chunked coding and gzip undone)."""
    head, _, body = block.partition(b"\r\n\r\n")
    headers = head.decode("latin-1").lower()
    if "transfer-encoding: chunked" in headers:
        out, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        body = out
    if "content-encoding: gzip" in headers:
        body = zlib.decompress(body, 31)
    return body


def text_lines(crawler, html, url, workdir):
    """The visible text of the HTML document `html` (bytes) at `url`, one stripped line per
    block, by `crawler inspect links --text`."""
    page = os.path.join(workdir, "page.html")
    with open(page, "wb") as f:
        f.write(html)
    out = subprocess.run([crawler, "inspect", "links", "--base", url, "--text", page],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise ReplayError(f"crawler inspect links --text {url}: {out.stderr.strip()}")
    return [l.strip() for l in out.stdout.splitlines() if l.strip()]


def expected_texts(crawler, warc_path, offset, length, url, workdir, count=3, width=60):
    """Up to `count` pieces (of `width` characters) of the visible text of the archived page,
    which the replayed page must show: its longest text lines."""
    _, block = read_record(warc_path, offset, length)
    lines = sorted(text_lines(crawler, http_body(block), url, workdir), key=len, reverse=True)
    return [l[:width] for l in lines[:count]]