"""npm packages the tests run (warcio.js's indexer, ReplayWeb.page's bundles), kept in a cache
folder and checked before they are trusted.

Each package version lives in `<cache>/<name>@<version>/`, made by `npm pack` (the published
tarball, unpacked: enough for ReplayWeb.page, whose ui.js and sw.js are self-contained bundles)
or `npm install` (with its dependencies: warcio's CLI). npm checks what it downloads against
the registry's integrity hashes; the folder then gets a manifest, written last, with the
SHA-256 of every file in it. Before a folder is used, the manifest must be there and every file
must match it; a folder that is partial (a build killed half way), tampered with or otherwise
broken is removed and made again, and one line says what was rebuilt and why. A lock file
serialises the tests that share the cache.

The cache is CRAWLER_NPM_CACHE, else $XDG_CACHE_HOME/crawler/npm (~/.cache/crawler/npm).
Python 3 standard library; needs node and npm (scripts/install-deps.sh) and the npm registry
the first time.
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

NPM_TIMEOUT_S = 600
MANIFEST = ".crawler-manifest.json"


class NpmError(Exception):
    pass


def cache_root():
    root = os.environ.get("CRAWLER_NPM_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "crawler", "npm")
    os.makedirs(root, exist_ok=True)
    return root


def _digests(folder):
    """{relative path: sha256} of every regular file under `folder` but the manifest."""
    out = {}
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder)
            if rel == MANIFEST or os.path.islink(path):
                continue
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            out[rel] = h.hexdigest()
    return out


def _problem(folder, spec, required):
    """Why `folder` cannot be trusted, or None."""
    manifest_path = os.path.join(folder, MANIFEST)
    if not os.path.isdir(folder):
        return "absent"
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        return f"no readable manifest ({e.__class__.__name__}): a partial build"
    if manifest.get("spec") != spec:
        return f"manifest is for {manifest.get('spec')!r}"
    listed = manifest.get("files", {})
    actual = _digests(folder)
    for rel in required:
        if rel not in listed:
            return f"{rel} is not in the manifest"
    missing = sorted(set(listed) - set(actual))
    if missing:
        return f"{len(missing)} files missing (e.g. {missing[0]})"
    changed = sorted(rel for rel in listed if actual[rel] != listed[rel])
    if changed:
        return f"{len(changed)} files differ from the manifest (e.g. {changed[0]})"
    extra = sorted(set(actual) - set(listed))
    if extra:
        return f"{len(extra)} files not in the manifest (e.g. {extra[0]})"
    return None


def _npm(args, cwd):
    cmd = ["npm", *args, "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"]
    try:
        result = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                                text=True, timeout=NPM_TIMEOUT_S)
    except FileNotFoundError:
        raise NpmError("npm is not installed (scripts/install-deps.sh installs it)")
    except subprocess.TimeoutExpired:
        raise NpmError(f"npm {' '.join(args)} took more than {NPM_TIMEOUT_S} s")
    if result.returncode != 0:
        raise NpmError(f"npm {' '.join(args)} failed ({result.returncode}): "
                       f"{result.stderr.strip()[-2000:]}")
    return result.stdout


def _build(root, name, version, mode):
    """A fresh folder for the package in `root`, manifest included; returns its path."""
    tmp = tempfile.mkdtemp(prefix=f".build-{name.replace('/', '_')}-", dir=root)
    os.chmod(tmp, 0o755)  # a cache other users of the machine may read
    try:
        if mode == "pack":
            tarball = _npm(["pack", "-q", f"{name}@{version}"], tmp).strip().splitlines()[-1]
            subprocess.run(["tar", "xzf", tarball], cwd=tmp, check=True, timeout=300)
            os.remove(os.path.join(tmp, tarball))
        else:
            with open(os.path.join(tmp, "package.json"), "w") as f:
                json.dump({"name": "crawler-test-tools", "private": True}, f)
            _npm(["install", "--save-exact", f"{name}@{version}"], tmp)
        with open(os.path.join(tmp, MANIFEST), "w") as f:
            json.dump({"spec": f"{name}@{version} ({mode})", "files": _digests(tmp)}, f)
        return tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def ensure(name, version, mode, required=()):
    """The checked folder of `name`@`version` (mode "pack" or "install"), made when it is
    absent or cannot be trusted. `required`: paths (relative to the folder) that must be in it.
    NpmError when npm cannot provide it."""
    root = cache_root()
    folder = os.path.join(root, f"{name.replace('/', '_')}@{version}-{mode}")
    spec = f"{name}@{version} ({mode})"
    with open(os.path.join(root, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        problem = _problem(folder, spec, required)
        if problem is None:
            return folder
        built = _build(root, name, version, mode)
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.rename(built, folder)
        problem_now = _problem(folder, spec, required)
        if problem_now is not None:
            raise NpmError(f"{spec} built in {folder} but {problem_now}")
        print(f"npm-tools: {'made' if problem == 'absent' else 'rebuilt'} {folder}"
              f"{'' if problem == 'absent' else ': ' + problem}", flush=True)
        return folder


# The versions the tests use.
WARCIO = ("warcio", "2.4.11", "install", ("node_modules/warcio/dist/cli.js",))
REPLAYWEBPAGE = ("replaywebpage", "2.5.3", "pack", ("package/ui.js", "package/sw.js"))


def warcio_cli():
    name, version, mode, required = WARCIO
    return os.path.join(ensure(name, version, mode, required), required[0])


def replaywebpage_dir():
    """The folder holding ReplayWeb.page's ui.js and sw.js."""
    name, version, mode, required = REPLAYWEBPAGE
    return os.path.join(ensure(name, version, mode, required), "package")
