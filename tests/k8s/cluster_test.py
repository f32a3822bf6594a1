#!/usr/bin/env python3
"""The crawler on a real Kubernetes: the Helm chart installed on a single-node cluster (1.20,
built from Debian's source package) that this test starts inside a network namespace of its own,
with no route out, and stops at the end.

  1. images: docker/build-images.sh (crawler, crawler-redis, crawler with the browser) and the
     cluster's pause image;
  2. cluster: scripts/k8s/cluster-up.sh inside scripts/k8s/in-netns.sh; the images imported into
     its containerd; hostPath PersistentVolumes for the chart's volume claims;
  3. websim as a pod (with a Service), its request log and ground truth on a hostPath volume; a
     second websim pod of scripted hosts for the render collection (7b);
  4. `helm install` with N = 2 partitions, the bundled Redis, the fetchers' browser on, no
     cluster DNS (peers found by the Services' environment variables), internal authentication on (the chart's defaults: mutual
     TLS with its own CA and a certificate per role, and an internal token); every pod under the
     chart's ServiceAccount with no API token; the disruption budgets enforced by the eviction
     API (a second frontier partition may not be evicted while the first is down);
  5. collections created with crawlctl through `kubectl port-forward`: `web1` undisturbed, every
     allowed page fetched exactly once (websim's log) and the statistics match; then two pods
     posing as fetchers without the credential (one plaintext, one with a role certificate but
     no internal token) are refused and given no collection;
  6. `web2` while a fetcher pod and a frontier pod are deleted (their StatefulSets make them
     again): every page fetched, refetches within the URLs on lease at the deletion;
     `web3` while `helm upgrade` changes a configuration value, which rolls every crawler pod:
     every page in the crawl logs on the fetchers' volumes, no URL lost;
     `web4` while `helm upgrade --set partitions=3` adds a third frontier and fetcher: the
     scheduler reshards the running crawl (a third of the hosts move to partition 2); every
     page fetched, refetches within the URLs on lease when the pods rolled, statistics with 3
     partitions reporting, `crawlctl partitions` steady at 3, and after the move every host
     fetched only by its owner's fetcher (fetcher 2 among them);
  7. politeness: no two requests to a host closer than the delay, over the four collections
     (one budget per host in Redis, across every pod restart);
  7b. rendering: the fetchers run the image with the browser (fetcher.browser.enabled, since the
     install: web1..web4 crawl with it too, rendering nothing); collection `rendered`
     (`render: always`, sitemaps off) crawls a second websim pod's web of scripted hosts, whose
     pages other than the roots are linked only by script. The Service `websim` (the fetchers'
     connect_to: one address for every host) selects that pod for this crawl only, so the web
     of web1..web4 stays as it was. Every page fetched once, the render-only ones included, the
     browser's subresources through the crawler, every page rendered (crawl logs, and the
     fetchers' crawler_fetcher_pages_rendered_total), no fetcher container restarted or
     OOM-killed, each fetcher pod's peak memory (its cgroup's) below its limit;
  8. the archive: `web1` and `web3` pulled out of the cluster with `crawlctl archive pull
     --wacz` (every file byte for byte the fetchers' volumes', every record once, every CDXJ
     equal to warcio.js's); web1's WACZ replayed in ReplayWeb.page in headless Chromium (20
     sampled pages show their archived text), and a WACZ of both (web3's pages are revisits of
     web1's: the content index is shared) with a revisit too; screenshots in
     BUILD/test-artifacts/k8s;
  9. Debian's Prometheus scrapes every crawler pod (file_sd targets from the API); every query
     of every dashboard returns data; the dashboards match Grafana's schema types.

usage: cluster_test.py --build-dir BUILD [--keep]   (root; the tools of scripts/k8s/install-tools.sh)
Every wait is bounded; everything started is stopped in a `finally`, also when a step fails.
"""

import argparse
import base64
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

from crawlertest import archive, npm  # noqa: E402
from crawlertest.e2e import (  # noqa: E402
    Checks, Fatal, check_coverage, check_politeness, check_renders, check_scripted_crawl,
    is_subresource_request, read_crawl_log, read_request_log, wait_until)

K8S = os.path.join(ROOT, "scripts", "k8s")
CACHE = os.environ.get("CRAWLER_K8S_CACHE", "/var/cache/crawler-k8s")
HELM = os.path.join(CACHE, "tools", "helm", "helm")
KUBECTL = os.path.join(CACHE, "tools", "kubectl", "kubectl")
RELEASE = "crawler"
NAMESPACE = "default"
# A web that takes the crawl about half a minute (each host's pages one delay apart), long
# enough to delete pods and roll the release in the middle of it.
DELAY_MS = 200
HOSTS, PAGES, SEED = 40, 30, 5
WEBSIM_PORT = 8080
STORAGE_CLASS = "crawler-test"
PV_COUNT = 9  # 3 frontiers, 3 fetchers (2 until web4 grows the fleet), dedup, scheduler, redis
# web4's per-host delay (`crawlctl hosts delay`): its crawl (~2 min) outlasts the upgrade that
# adds the third partition (every pod rolls: ~1 min) and the reshard after it.
RESHARD_DELAY_MS = 4000
# The render collection's web (7b): every host scripted, under a suffix of its own; small, as each
# page is rendered (a few seconds of a core each on this node).
SCRIPTED_HOSTS, SCRIPTED_PAGES, SCRIPTED_SEED = 4, 15, 9
SCRIPTED_SUFFIX = ".scripted.test"


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(cmd, timeout_s=300, check=True, **kwargs):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, **kwargs)
    if check and out.returncode != 0:
        raise Fatal(f"{' '.join(cmd[:4])}... exited with {out.returncode}: "
                    f"{(out.stderr or out.stdout).strip()[-2000:]}")
    return out


class Kube:
    def __init__(self, state):
        self.kubeconfig = os.path.join(state, "admin.kubeconfig")

    def __call__(self, *args, timeout_s=120, check=True, stdin=None):
        return run([KUBECTL, "--kubeconfig", self.kubeconfig, "-n", NAMESPACE, *args],
                   timeout_s=timeout_s, check=check, input=stdin)

    def json(self, *args):
        return json.loads(self(*args, "-o", "json").stdout)

    def apply(self, manifest):
        self("apply", "-f", "-", stdin=manifest)

    def helm(self, *args, timeout_s=600):
        return run([HELM, "--kubeconfig", self.kubeconfig, "-n", NAMESPACE, *args],
                   timeout_s=timeout_s)

    def pods(self):
        return {p["metadata"]["name"]: p for p in self.json("get", "pods")["items"]}

    def crawler_pods(self):
        return {n: p for n, p in self.pods().items()
                if p["metadata"].get("labels", {}).get("app.kubernetes.io/instance") == RELEASE}


def ready(pod):
    if pod["metadata"].get("deletionTimestamp"):
        return False
    conds = pod.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)


# ---------------------------------------------------------------- the parts of the cluster

def hostpath_volumes(kube, state):
    """Static hostPath PersistentVolumes (the test cluster has no provisioner) of the class
    the chart's claims ask for; their directories are readable from the test (crawl logs)."""
    docs = []
    for i in range(PV_COUNT):
        path = os.path.join(state, "pv", f"pv{i}")
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o777)
        docs.append(f"""apiVersion: v1
kind: PersistentVolume
metadata: {{name: crawler-test-pv{i}}}
spec:
  capacity: {{storage: 5Gi}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: {STORAGE_CLASS}
  hostPath: {{path: {path}, type: Directory}}
""")
    kube("apply", "-f", "-", stdin="---\n".join(docs))


def websim_pod(name, sim_dir, web_args):
    """websim as pod `name` (label app: NAME) serving the web of `web_args` on WEBSIM_PORT, its
    request log, truth and seeds in `sim_dir` (a hostPath)."""
    os.makedirs(sim_dir, exist_ok=True)
    os.chmod(sim_dir, 0o777)
    args = [*web_args, "--bind", "0.0.0.0", "--port", str(WEBSIM_PORT), "--threads", "2",
            "--log", "/sim/requests.log", "--truth", "/sim/truth.tsv", "--seeds-file",
            "/sim/seeds.txt", "--max-seconds", "2400"]
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  securityContext: {{runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532}}
  dnsPolicy: Default
  containers:
    - name: websim
      image: localhost/crawler:latest
      imagePullPolicy: Never
      command: [/usr/local/bin/websim]
      args: {json.dumps(args)}
      ports: [{{containerPort: {WEBSIM_PORT}}}]
      readinessProbe: {{tcpSocket: {{port: {WEBSIM_PORT}}}, periodSeconds: 2}}
      securityContext: {{readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}}
      volumeMounts: [{{name: sim, mountPath: /sim}}]
  volumes:
    - name: sim
      hostPath: {{path: {sim_dir}, type: Directory}}
"""


def start_websim(kube, sim_dir, scripted_dir):
    """The two webs: web1..web4's (pod `websim`) and the render collection's scripted hosts (pod
    `websim-scripted`, 7b). The Service `websim`, whose address every fetcher sends every request
    to (connect_to), selects the first. Returns the Service's address."""
    kube.apply(websim_pod("websim", sim_dir, ["--hosts", str(HOSTS), "--pages", str(PAGES),
                                              "--seed", str(SEED)]) + "---\n" +
               websim_pod("websim-scripted", scripted_dir, [
                   "--hosts", str(SCRIPTED_HOSTS), "--pages", str(SCRIPTED_PAGES), "--seed",
                   str(SCRIPTED_SEED), "--host-suffix", SCRIPTED_SUFFIX, "--scripted-hosts", "1"]) +
               f"""---
apiVersion: v1
kind: Service
metadata: {{name: websim}}
spec:
  selector: {{app: websim}}
  ports: [{{port: {WEBSIM_PORT}, targetPort: {WEBSIM_PORT}}}]
""")
    for pod in ("websim", "websim-scripted"):
        wait_until(lambda: ready(kube.json("get", "pod", pod)), 120, f"the {pod} pod", poll_s=1)
    return kube.json("get", "service", "websim")["spec"]["clusterIP"]


def serve_web(kube, websim_ip, app, suffix):
    """Points the Service `websim` at pod `app` and waits until kube-proxy sends new connections
    there (websim's seeds endpoint, through the Service, names hosts ending in `suffix`).
    Connections made before stay with the pod they went to: the two webs' host names differ, so
    no fetcher reuses one for the other web."""
    kube("patch", "service", "websim", "-p", json.dumps({"spec": {"selector": {"app": app}}}))

    def switched():
        try:
            with urllib.request.urlopen(f"http://{websim_ip}:{WEBSIM_PORT}/__websim/seeds",
                                        timeout=5) as r:
                seeds = r.read().decode().split()
        except OSError:
            return False
        return bool(seeds) and all(u.rstrip("/").endswith(suffix) for u in seeds)
    wait_until(switched, 60, f"the Service websim to reach pod {app}", poll_s=0.5)


def chart_values(websim_ip, work):
    """The test's values: no cluster DNS, small requests (one 2-core node), the hostPath class,
    the fetchers pointed at websim's Service and given the browser."""
    small = {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "1Gi"}}
    storage = {"size": "1Gi", "storageClassName": STORAGE_CLASS}
    values = {
        "partitions": 2,
        "clusterDNS": False,
        "image": {"pullPolicy": "Never"},
        "redis": {"image": {"pullPolicy": "Never"}, "resources": small, "storage": storage},
        "frontier": {"resources": small, "storage": storage},
        "dedup": {"resources": small, "storage": storage},
        "scheduler": {"resources": small, "storage": storage,
                      "config": {"report_interval": "1s", "sync_interval": "2s",
                                 "revisit_tune_interval": "5s", "reshard_settle": "5s"}},
        # The browser's processes stay under half of the fetcher's limit (they are replaced when
        # they grow past browser_memory_bytes); the fetcher's own take the rest.
        "fetcher": {"resources": small, "storage": storage, "browser": {"enabled": True},
                    "config": {
            "allow_networks": ["10.96.0.0/16", "10.244.0.0/24"],
            "connect_to": f"{websim_ip}:{WEBSIM_PORT}",
            "min_delay": f"{DELAY_MS}ms", "delay_factor": 0, "partition_header": True,
            "report_interval": "1s", "timeout": "10s", "browser_memory_bytes": 512 << 20}},
    }
    path = os.path.join(work, "values.json")
    with open(path, "w") as f:
        json.dump(values, f)
    return path


class PortForward:
    """`kubectl port-forward` of the admin Service to a free port of this namespace's loopback,
    started again if it dies (its pod may be rolled)."""

    def __init__(self, kube, work):
        self.kube = kube
        self.work = work
        self.proc = None
        self.port = None

    def start(self):
        self.stop()
        out_path = os.path.join(self.work, "port-forward.log")
        self.out = open(out_path, "w")
        self.proc = subprocess.Popen(
            [KUBECTL, "--kubeconfig", self.kube.kubeconfig, "-n", NAMESPACE, "port-forward",
             f"svc/{RELEASE}-admin", ":7443", "--address", "127.0.0.1"],
            stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        def bound():
            if self.proc.poll() is not None:
                raise Fatal(f"kubectl port-forward exited: {open(out_path).read()[-500:]}")
            m = re.search(r"Forwarding from 127\.0\.0\.1:(\d+)", open(out_path).read())
            return int(m.group(1)) if m else None
        self.port = wait_until(bound, 60, "kubectl port-forward", poll_s=0.2)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


class Ctl:
    """crawlctl through the port-forward; a call that fails (pod rolling, forward broken) is
    retried within the caller's bounded wait."""

    def __init__(self, crawlctl, forward, token_file):
        self.crawlctl = crawlctl
        self.forward = forward
        self.token_file = token_file

    def __call__(self, *args, json_out=False, check=True):
        if not self.forward.alive():
            self.forward.start()
        cmd = [self.crawlctl, "--server", f"127.0.0.1:{self.forward.port}",
               "--token-file", self.token_file, *(["--json"] if json_out else []), *args]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if check and out.returncode != 0:
            raise Fatal(f"crawlctl {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return out

    def stats(self, name):
        out = self(*["stats", name], json_out=True, check=False)
        if out.returncode != 0:
            if "Connection refused" in out.stderr or out.returncode == 3:
                self.forward.stop()  # the admin pod moved: forward again next call
            return None
        return json.loads(out.stdout)

    def state(self, name):
        out = self("collections", "get", name, json_out=True, check=False)
        if out.returncode != 0:
            self.forward.stop()
            return ""
        return str(json.loads(out.stdout).get("state", ""))


def field(d, name, default=0):
    if name in d:
        return d[name]
    parts = name.split("_")
    return d.get(parts[0] + "".join(p.title() for p in parts[1:]), default)


def create_collection(ctl, work, name, seeds, extra=""):
    path = os.path.join(work, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(f"name: {name}\nmin_delay: {DELAY_MS}ms\ndelay_factor: 0\n{extra}seeds:\n")
        f.writelines(f"  - {s}\n" for s in seeds)
    ctl("collections", "create", "-f", path)


def pages_of(ctl, name):
    s = ctl.stats(name)
    return int(field(s, "pages") or 0) if s else 0


def wait_finished(ctl, name, timeout_s=600):
    wait_until(lambda: ctl.state(name).endswith("FINISHED"), timeout_s,
               f"collection {name} to finish", poll_s=2)
    time.sleep(3)  # > the fetchers' report interval: their last counters
    return ctl.stats(name)


def check_stats(checks, stats, expected, truth, what, disturbed=False, partitions=2):
    """The collection's statistics against websim's truth. Robots denials are events: a crawl
    disturbed by restarts denies a re-leased URL again, so there they are a lower bound."""
    if not checks.check(stats is not None, f"{what}: crawlctl stats failed"):
        return
    checks.check(int(field(stats, "pages") or 0) == len(expected),
                 f"{what}: stats pages {field(stats, 'pages')}, truth {len(expected)}")
    denied = int(field(stats, "robots_denied") or 0)
    checks.check(denied >= len(truth["disallowed"]) if disturbed else denied == len(truth["disallowed"]),
                 f"{what}: stats robots_denied {denied}, truth {len(truth['disallowed'])}")
    checks.check(field(stats, "exhausted", False) is True and
                 int(field(stats, "partitions_reporting") or 0) == partitions,
                 f"{what}: not exhausted, or not every partition reporting: {stats}")


def report_restarts(kube):
    """Containers restarted in place (not pods replaced): which, and why (their last run's end
    and log), for the test's log."""
    for name, pod in sorted(kube.crawler_pods().items()):
        status = pod["status"]["containerStatuses"][0]
        if status["restartCount"]:
            last = status.get("lastState", {}).get("terminated", {})
            prev = kube("logs", name, "--previous", "--tail", "5", check=False).stdout.strip()
            log(f"{name}: restarted {status['restartCount']}x, last exit {last.get('exitCode')}: "
                f"{prev.splitlines()[-1] if prev else '(no log)'}")


def wait_rolled(kube, before, timeout_s=300):
    """Until every crawler pod of `before` (name -> uid) is replaced by a ready one."""
    def done():
        pods = kube.crawler_pods()
        return len(pods) >= len(before) and all(
            n in pods and pods[n]["metadata"]["uid"] != uid and ready(pods[n])
            for n, uid in before.items())
    wait_until(done, timeout_s, "every crawler pod rolled and ready", poll_s=2)


def check_cluster_fit(kube, checks):
    """The chart's objects for a real cluster: every pod under the release's ServiceAccount with
    no API token mounted, and the two disruption budgets (policy/v1beta1 on 1.20), which the
    eviction API enforces: one frontier partition evicted and not yet back, a second eviction is
    refused. Ends with every crawler pod ready again."""
    for name, pod in kube.crawler_pods().items():
        mounts = [m["mountPath"] for c in pod["spec"]["containers"] for m in c.get("volumeMounts", [])]
        checks.check(pod["spec"].get("serviceAccountName") == RELEASE and
                     not any("serviceaccount" in m for m in mounts),
                     f"{name}: service account {pod['spec'].get('serviceAccountName')}, mounts {mounts}")
    budgets = {b["metadata"]["name"]: b for b in kube.json("get", "pdb")["items"]}
    checks.check(sorted(budgets) == [f"{RELEASE}-fetcher", f"{RELEASE}-frontier"],
                 f"disruption budgets: {sorted(budgets)}")
    wait_until(lambda: kube.json("get", "pdb", f"{RELEASE}-frontier")
               .get("status", {}).get("disruptionsAllowed") == 1, 120,
               "the frontier budget allows one disruption", poll_s=1)
    before = len(kube.crawler_pods())

    def evict(pod):
        body = json.dumps({"apiVersion": "policy/v1beta1", "kind": "Eviction",
                           "metadata": {"name": pod, "namespace": NAMESPACE}})
        return kube("create", "--raw", f"/api/v1/namespaces/{NAMESPACE}/pods/{pod}/eviction",
                    "-f", "-", stdin=body, check=False)
    first, second = evict(f"{RELEASE}-frontier-0-0"), evict(f"{RELEASE}-frontier-1-0")
    checks.check(first.returncode == 0, f"evicting frontier 0: {first.stderr.strip()[-300:]}")
    refusal = second.stderr.strip()
    checks.check(second.returncode != 0 and ("429" in refusal or "disruption budget" in refusal),
                 f"evicting frontier 1 with frontier 0 down was not refused: {refusal[-300:]}")
    log(f"disruption budgets {sorted(budgets)}: frontier 0 evicted, frontier 1 refused "
        f"({refusal.splitlines()[-1][:160] if refusal else 'no message'})")
    wait_all_ready(kube, before)


def wait_all_ready(kube, count, timeout_s=300):
    def done():
        pods = kube.crawler_pods()
        return len(pods) == count and all(ready(p) for p in pods.values())
    wait_until(done, timeout_s, f"{count} crawler pods ready", poll_s=2)


# ---------------------------------------------------------------- websim's files

def websim_requests(sim_dir):
    return read_request_log(os.path.join(sim_dir, "requests.log"))


def websim_truth(sim_dir):
    kinds = collections.defaultdict(set)
    with open(os.path.join(sim_dir, "truth.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                kind, url = line.split("\t")
                kinds[kind].add(url)
    return kinds


def crawl_log_lines(state, name):
    """The lines of the crawl logs of `name` on every fetcher volume, and how many were
    malformed."""
    lines = []
    malformed = 0
    for root, _, files in os.walk(os.path.join(state, "pv")):
        if f"{name}.log" in files and os.path.basename(root) == "logs":
            good, bad = read_crawl_log(os.path.join(root, f"{name}.log"))
            lines += good
            malformed += len(bad)
    return lines, malformed


def crawl_log_urls(state, name):
    """URL -> number of lines, over the crawl logs of `name` on every fetcher volume."""
    lines, malformed = crawl_log_lines(state, name)
    return collections.Counter(line.url for line in lines), malformed


# ---------------------------------------------------------------- a reshard

def grow_fleet(checks, args, kube, ctl, work, chart, values, seeds, sim_dir, truth):
    """web4 crawls while `helm upgrade --set partitions=3` adds a third frontier and fetcher:
    the scheduler moves a third of the hosts to partition 2 (docs/architecture.md §4) while the
    crawl goes on. Every page fetched, refetches within the URLs on lease when the pods rolled,
    the statistics equal the truth with 3 partitions reporting, `crawlctl partitions` steady at
    3 with hosts moved, and after the move the hosts partition 2 owns fetched by fetcher 2 only
    (X-Crawler-Partition in websim's log). Returns a summary for the log."""
    expected = truth["page"] | truth["seed"]
    start = len(websim_requests(sim_dir))
    # The fetchers' delay is the process's (200 ms); web4's hosts get an operator's delay
    # (host control, kept by the partition that owns the host and moved with it), so that the
    # crawl outlasts the upgrade, and the delay is checked on both sides of the move.
    create_collection(ctl, work, "web4", seeds)
    ctl("collections", "pause", "web4")
    hosts = sorted({u.split("/")[2] for u in seeds})
    for host in hosts:
        ctl("hosts", "delay", "web4", host, f"{RESHARD_DELAY_MS}ms")
    ctl("collections", "resume", "web4")
    # URLs leased before the pause may still go at the fetchers' pace: the delay is checked
    # from a few seconds after it was set.
    paced_from = time.monotonic_ns() + 5 * 10**9
    wait_until(lambda: pages_of(ctl, "web4") >= len(expected) // 10, 300, "a tenth of web4")
    samples = [ctl.stats("web4") or {} for _ in range(3)]
    before = {n: p["metadata"]["uid"] for n, p in kube.crawler_pods().items()
              if n != f"{RELEASE}-redis-0"}
    log(f"web4: {pages_of(ctl, 'web4')} pages; helm upgrade --set partitions=3")
    kube.helm("upgrade", RELEASE, chart, "-f", values, "--set", "partitions=3", "--wait",
              "--timeout", "5m")
    on_lease = max(int(field(x, "in_flight_urls") or 0) for x in samples)
    wait_rolled(kube, before)
    pods = kube.crawler_pods()
    for role in ("frontier", "fetcher"):
        checks.check(f"{RELEASE}-{role}-2-0" in pods,
                     f"no {role} of partition 2 after the upgrade: {sorted(pods)}")

    def steady():
        out = ctl("partitions", json_out=True, check=False)
        if out.returncode != 0:
            ctl.forward.stop()
            return None
        status = json.loads(out.stdout)
        return status if (field(status, "phase", "") == "steady" and
                          int(field(status, "partition_count") or 0) == 3) else None
    status = wait_until(steady, 300, "the fleet resharded to 3 partitions", poll_s=2)
    moved = int(field(status, "hosts_moved") or 0)
    checks.check(moved > 0 and int(field(status, "to") or 0) == 3,
                 f"web4: the reshard moved no host: {status}")
    resharded_at = time.monotonic_ns()  # websim's log: CLOCK_MONOTONIC, one kernel
    final = wait_finished(ctl, "web4")
    requests = websim_requests(sim_dir)[start:]
    pages = collections.Counter(f"http://{r.host}{r.target}" for r in requests)
    missing = expected - set(pages)
    checks.check(not missing, f"web4: {len(missing)} pages never fetched, e.g. {sorted(missing)[:5]}")
    refetched = {u: n for u, n in pages.items() if u in expected and n > 1}
    extra = sum(refetched.values()) - len(refetched)
    checks.check(extra <= on_lease, f"web4: {extra} refetches, more than the {on_lease} URLs on "
                                    f"lease when the pods rolled")
    check_stats(checks, final, expected, truth, "web4", disturbed=True, partitions=3)
    crawler = os.path.join(args.build_dir, "tools", "crawler", "crawler")
    after = [r for r in requests if r.ns >= resharded_at and r.target != "/robots.txt"]
    out = run([crawler, "inspect", "partition", "--partitions", "3", *hosts])
    owner = dict(reversed(line.split("\t")) for line in out.stdout.splitlines())
    wrong = [(r.host, r.partition, owner[r.host]) for r in after if r.partition != owner[r.host]]
    checks.check(not wrong, f"web4: {len(wrong)} requests after the reshard from a fetcher that "
                            f"does not own the host (host, fetcher, owner): {wrong[:3]}")
    on_two = sum(1 for r in after if owner[r.host] == "2")
    checks.check(on_two > 0, f"web4: no request by fetcher 2 after the reshard ({len(after)} after)")
    # The operator's delay held before, during and after the move (the robots.txt fetch of a
    # host, once per fetcher, is not held to it).
    smallest, _ = check_politeness(
        checks, [r for r in requests if r.target != "/robots.txt" and r.ns >= paced_from],
        RESHARD_DELAY_MS, wall_clock=True)
    return (f"{len(expected) - len(missing)} of {len(expected)} pages, {extra} refetches "
            f"({on_lease} on lease at the upgrade); {moved} hosts and "
            f"{field(status, 'urls_moved')} URLs moved to partition 2; {len(after)} requests "
            f"after the move, {on_two} of them by fetcher 2, all by their host's owner; smallest "
            f"gap {smallest / 1e6 if smallest else 0:.0f} ms (hosts delay {RESHARD_DELAY_MS} ms)")


# ---------------------------------------------------------------- rendering

def quantity_bytes(text):
    """A Kubernetes memory quantity ("1Gi", "512Mi", "1000000") in bytes."""
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "k": 10**3, "M": 10**6, "G": 10**9}
    m = re.fullmatch(r"([0-9]+)([KMG]i|[kMG])?", text)
    if not m:
        raise Fatal(f"memory quantity {text!r} not understood")
    return int(m.group(1)) * units.get(m.group(2), 1)


class PodMemory:
    """A pod's memory as its cgroup counts it (kubelet's cgroupfs driver: kubepods/<qos>/pod<uid>),
    page cache included, as its limit counts it: the peak (cgroup v1's memory.max_usage_in_bytes,
    which can be reset; v2's memory.peak, Linux 5.19+, over the pod's life) and the kernel's OOM
    kills in it (memory.oom_control, memory.events)."""

    def __init__(self, uid):
        self.dir = None
        self.v1 = False
        for pattern, v1 in ((f"/sys/fs/cgroup/memory/kubepods*/**/pod{uid}", True),
                            (f"/sys/fs/cgroup/kubepods*/**/pod{uid}", False)):
            found = glob.glob(pattern, recursive=True)
            if found:
                self.dir, self.v1 = found[0], v1
                break

    def reset_peak(self):
        if self.dir and self.v1:
            with open(os.path.join(self.dir, "memory.max_usage_in_bytes"), "w") as f:
                f.write("0")

    def peak(self):
        name = "memory.max_usage_in_bytes" if self.v1 else "memory.peak"
        with open(os.path.join(self.dir, name)) as f:
            return int(f.read())

    def oom_kills(self):
        name = "memory.oom_control" if self.v1 else "memory.events"
        with open(os.path.join(self.dir, name)) as f:
            for line in f:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0


def fetcher_pods(kube):
    return {n: p for n, p in kube.crawler_pods().items()
            if p["metadata"]["labels"].get("app.kubernetes.io/component") == "fetcher"}


def pages_rendered(pod):
    """crawler_fetcher_pages_rendered_total of a fetcher pod, from its metrics port."""
    url = f"http://{pod['status']['podIP']}:9102/metrics"
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    m = re.search(r"^crawler_fetcher_pages_rendered_total ([0-9.e+]+)$", text, re.M)
    return int(float(m.group(1))) if m else 0


def crawl_rendered(checks, kube, ctl, work, state, scripted_dir, websim_ip):
    """7b: collection `rendered` (render: always, sitemaps off) over the scripted web, with the
    Service websim pointed at its pod for this crawl only. Returns a summary for the log."""
    truth = websim_truth(scripted_dir)
    expected = truth["page"] | truth["seed"]
    seeds = [l.strip() for l in open(os.path.join(scripted_dir, "seeds.txt")) if l.strip()]
    pods = fetcher_pods(kube)
    memory = {n: PodMemory(p["metadata"]["uid"]) for n, p in pods.items()}
    for m in memory.values():
        m.reset_peak()  # v1: the peak of this crawl; v2: of the pod's life (web4 included)
    serve_web(kube, websim_ip, "websim-scripted", SCRIPTED_SUFFIX)
    try:
        create_collection(ctl, work, "rendered", seeds, "render: always\nsitemap_discovery: off\n")
        final = wait_finished(ctl, "rendered")
    finally:
        serve_web(kube, websim_ip, "websim", ".websim.test")
    requests = websim_requests(scripted_dir)
    fetched, subresources = check_scripted_crawl(checks, requests, truth, True, "rendered")
    # A render's subresources are not paced by the host's delay (docs/fetcher.md, "Rendering").
    check_politeness(checks, [r for r in requests if not is_subresource_request(r)], DELAY_MS,
                     wall_clock=True)
    check_stats(checks, final, expected, truth, "rendered", partitions=3)
    lines, malformed = crawl_log_lines(state, "rendered")
    checks.check(malformed == 0, f"rendered: {malformed} malformed crawl log lines")
    outcomes = check_renders(checks, lines, fetched, "rendered")
    after = fetcher_pods(kube)
    counted = {n: pages_rendered(p) for n, p in after.items()}
    checks.check(sum(counted.values()) == sum(outcomes.values()),
                 f"rendered: the fetchers' crawler_fetcher_pages_rendered_total {counted}, "
                 f"{sum(outcomes.values())} renders in the crawl logs")
    peaks = []
    for name, pod in sorted(after.items()):
        status = pod["status"]["containerStatuses"][0]
        last = status.get("lastState", {}).get("terminated", {})
        checks.check(status["restartCount"] == 0 and name in pods and pod["metadata"]["uid"] ==
                     pods[name]["metadata"]["uid"],
                     f"{name}: restarted or replaced during the render crawl: "
                     f"{status['restartCount']} restarts, last end {last.get('reason')}")
        limit = quantity_bytes(pod["spec"]["containers"][0]["resources"]["limits"]["memory"])
        m = memory.get(name)
        if not checks.check(m is not None and m.dir is not None,
                            f"{name}: its pod's memory cgroup not found under /sys/fs/cgroup"):
            continue
        peak, kills = m.peak(), m.oom_kills()
        checks.check(peak < limit and kills == 0,
                     f"{name}: peak memory {peak >> 20} MiB (limit {limit >> 20} MiB), "
                     f"{kills} OOM kills in the pod")
        peaks.append(f"{name} {peak >> 20} of {limit >> 20} MiB")
    cgroup = "v1, this crawl" if any(m.v1 for m in memory.values()) else "v2, the pod's life"
    return (f"{len(fetched)} of {len(expected)} pages ({len(truth['render_only'])} only by "
            f"rendering), renders {dict(outcomes)}, pages_rendered {counted}, {subresources} "
            f"subresources through the crawler; peak memory ({cgroup}) {', '.join(peaks)}")


# ---------------------------------------------------------------- the archive

def volume_archive_files(state, collection):
    """{name: path} of the finished WARC and CDXJ files of `collection` on the fetchers'
    volumes (<pv>/warc/<collection>/)."""
    files = {}
    for root, _, names in os.walk(os.path.join(state, "pv")):
        if os.path.basename(root) == collection and \
                os.path.basename(os.path.dirname(root)) == "warc":
            for n in names:
                if n.endswith((".warc.gz", ".cdxj")):
                    files[n] = os.path.join(root, n)
    return files


def pull_archive(checks, args, ctl, state, work, name):
    """`name` pulled out of the cluster through the admin port with its WACZ: every file as on
    the volumes, every record once, each CDXJ equal to warcio.js's. Returns the pulled WARCs."""

    def settled():
        out = ctl("archive", "list", name, json_out=True, check=False)
        if out.returncode != 0:
            return None
        listing = json.loads(out.stdout)
        fetchers = listing.get("fetchers", [])
        return listing if fetchers and not listing.get("partitions_without_fetcher") and all(
            not f.get("in_progress") and not f.get("error") for f in fetchers) else None
    wait_until(settled, 180, f"{name}: every archive file finished and indexed", poll_s=2)
    pulled = os.path.join(work, f"{name}-pulled")
    out = subprocess.run([args.crawlctl, "--server", f"127.0.0.1:{ctl.forward.port}",
                          "--token-file", ctl.token_file, "archive", "pull", name, pulled,
                          "--wacz"], capture_output=True, text=True, timeout=900)
    checks.check(out.returncode == 0, f"archive pull {name}: exit {out.returncode}: "
                                      f"{out.stderr.strip()[-1500:]}")
    on_volumes = volume_archive_files(state, name)
    got = {n: os.path.join(pulled, n) for n in os.listdir(pulled)
           if n.endswith((".warc.gz", ".cdxj"))}
    checks.check(sorted(got) == sorted(on_volumes),
                 f"archive {name}: pulled {sorted(got)}, the volumes hold {sorted(on_volumes)}")
    for n in set(got) & set(on_volumes):
        checks.check(archive.sha256(got[n]) == archive.sha256(on_volumes[n]),
                     f"archive {name}: {n} differs from the volume's")
    warcs = sorted(p for n, p in got.items() if n.endswith(".warc.gz"))
    records = archive.record_ids(warcs)
    ids = collections.Counter(r.get("warc-record-id") for r in records)
    checks.check(all(n == 1 for n in ids.values()), f"archive {name}: records pulled more than "
                                                    f"once: {[i for i, n in ids.items() if n > 1][:3]}")
    held = archive.record_ids(sorted(p for n, p in on_volumes.items() if n.endswith(".warc.gz")))
    checks.check(len(records) == len(held),
                 f"archive {name}: {len(records)} records pulled, the volumes hold {len(held)}")
    lines = differing = 0
    cli = npm.warcio_cli()
    for warc in warcs:
        l, d, _ = archive.compare_with_warcio(checks, cli, warc,
                                              archive.read_lines(warc[:-8] + ".cdxj"),
                                              f"archive {name}")
        lines, differing = lines + l, differing + d
    kinds = collections.Counter(r.get("warc-type") for r in records)
    log(f"archive: {name}: {len(got)} files ({len(warcs)} WARC) pulled, {len(records)} records "
        f"once each ({kinds['response']} responses, {kinds['revisit']} revisits); {lines} CDXJ "
        f"lines, {differing} differ from warcio.js's")
    return warcs


def replay(checks, args, work, wacz, warcs, what, require_revisit):
    crawler = os.path.join(args.build_dir, "tools", "crawler", "crawler")
    replay_dir = os.path.join(work, f"replay-{what}")
    os.makedirs(replay_dir, exist_ok=True)
    try:
        shown, sampled = archive.check_replay(
            checks, crawler, wacz, warcs, replay_dir,
            os.path.join(args.build_dir, "test-artifacts", "k8s", what), require_revisit)
        log(f"archive: {what} replayed in ReplayWeb.page: {shown} of {sampled} pages")
    except archive.Skipped as e:
        checks.fail(f"archive: {what} not replayed: {e}")


def check_archive(checks, args, ctl, state, work):
    """Step 8: web1 and web3 pulled out; web1's WACZ replayed; web3's pages are revisits of
    web1's (the content index is shared by every collection), so they replay from a package of
    both."""
    web1 = pull_archive(checks, args, ctl, state, work, "web1")
    replay(checks, args, work, os.path.join(work, "web1-pulled", "web1.wacz"), web1, "web1",
           require_revisit=False)
    web3 = pull_archive(checks, args, ctl, state, work, "web3")
    both = os.path.join(work, "web1-web3.wacz")
    crawler = os.path.join(args.build_dir, "tools", "crawler", "crawler")
    out = run([crawler, "warc", "wacz", "--collection", "web1+web3", "-o", both, *web1, *web3],
              check=False)
    if checks.check(out.returncode == 0, f"archive: the WACZ of web1 and web3: {out.stderr}"):
        replay(checks, args, work, both, web1 + web3, "web1+web3", require_revisit=True)


# ---------------------------------------------------------------- Prometheus

def start_prometheus(kube, state):
    prom = os.path.join(state, "prom")
    os.makedirs(os.path.join(prom, "targets"), exist_ok=True)
    config = open(os.path.join(ROOT, "deploy", "prometheus", "prometheus-file-sd.yml")).read()
    # Scraped every 2 s here, so that rate() has samples within the test's minutes.
    config = config.replace("scrape_interval: 15s", "scrape_interval: 2s").replace(
        "refresh_interval: 15s", "refresh_interval: 2s")
    with open(os.path.join(prom, "prometheus.yml"), "w") as f:
        f.write(config)
    shutil.copy(os.path.join(ROOT, "deploy", "prometheus", "alerts.yml"), prom)
    run(["promtool", "check", "config", os.path.join(prom, "prometheus.yml")])
    write_targets(kube, prom)
    proc = subprocess.Popen(
        ["prometheus", f"--config.file={prom}/prometheus.yml", f"--storage.tsdb.path={prom}/tsdb",
         "--web.listen-address=127.0.0.1:19090"],
        stdout=open(os.path.join(prom, "prometheus.log"), "w"), stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL)
    with open(os.path.join(state, "prometheus.pid"), "w") as f:
        f.write(str(proc.pid))
    return proc, prom


def intruder_pod(name, tls_args=(), tls_volume=False):
    """A pod of the crawler image running `crawlerd fetcher` towards this release's scheduler and
    frontiers, labelled as one of the release's pods (so the NetworkPolicy, where a plugin
    enforces it, lets it through: only the credential decides), without the internal token."""
    host = lambda service: f"$({RELEASE.upper()}_{service.upper().replace('-', '_')}_SERVICE_HOST):7000"
    args = ["fetcher", "--partition", "0", "--frontier", host("frontier-0"),
            "--frontier", host("frontier-1"), "--scheduler", host("scheduler"),
            "--data-dir", "/data", "--report-interval", "1s", *tls_args]
    volume = ""
    mount = ""
    if tls_volume:
        mount = "\n      volumeMounts: [{name: tls, mountPath: /tls}, {name: data, mountPath: /data}]"
        volume = f"""
    - name: tls
      secret:
        secretName: {RELEASE}-internal-tls
        items: [{{key: ca.crt, path: ca.crt}}, {{key: fetcher.crt, path: fetcher.crt}},
                {{key: fetcher.key, path: fetcher.key}}]"""
    else:
        mount = "\n      volumeMounts: [{name: data, mountPath: /data}]"
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: crawler, app.kubernetes.io/instance: {RELEASE},
           app.kubernetes.io/component: intruder}}
spec:
  securityContext: {{runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532}}
  dnsPolicy: Default
  containers:
    - name: intruder
      image: localhost/crawler:latest
      imagePullPolicy: Never
      command: [/usr/local/bin/crawlerd]
      args: {json.dumps(args)}
      securityContext: {{readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}}{mount}
  volumes:
    - name: data
      emptyDir: {{}}{volume}
"""


def check_intruders(checks, kube):
    """Two pods that reach the internal ports without the credential: one plaintext, without
    anything (the TLS handshake refuses it), one with a valid role certificate but no internal
    token (UNAUTHENTICATED). Neither gets a collection; both are deleted afterwards."""
    cm = kube.json("get", "configmap", f"{RELEASE}-config")["data"]
    checks.check(all("internal_token_file" in cm[f"{r}.yaml"] and
                     "tls_client_ca_file" in cm[f"{r}.yaml"]
                     for r in ("frontier", "fetcher", "dedup", "scheduler")),
                 "internal authentication is not on in every role's configuration")
    tls = ["--peer-tls-ca-file", "/tls/ca.crt", "--peer-tls-cert-file", "/tls/fetcher.crt",
           "--peer-tls-key-file", "/tls/fetcher.key", "--peer-tls-server-name",
           "crawler-internal"]
    intruders = {"intruder-plain": ("UNAVAILABLE", intruder_pod("intruder-plain")),
                 "intruder-no-token": ("UNAUTHENTICATED",
                                       intruder_pod("intruder-no-token", tls, tls_volume=True))}
    for name, (_, manifest) in intruders.items():
        kube.apply(manifest)
    try:
        for name, (code, _) in intruders.items():
            def refused():
                out = kube("logs", name, check=False).stdout
                return out if "scheduler unreachable" in out else None
            try:
                logged = wait_until(refused, 120, f"{name} to be refused", poll_s=2)
            except Fatal as e:
                checks.fail(f"{e}: {kube('logs', name, check=False).stdout[-1500:]}")
                continue
            line = next(l for l in logged.splitlines() if "scheduler unreachable" in l)
            checks.check(code in line, f"{name}: refused with {line!r}, expected {code}")
            checks.check("crawling collection" not in logged,
                         f"{name} was given a collection: {logged[-1000:]}")
            log(f"internal auth: {name} refused: {line.strip()}")
    finally:
        kube("delete", "pod", *intruders, "--wait=true", "--timeout=60s", check=False)


def write_targets(kube, prom):
    run([sys.executable, os.path.join(K8S, "pod-targets.py"), os.path.join(prom, "targets", "pods.json"),
         "--kubeconfig", kube.kubeconfig], env={**os.environ, "KUBECTL": KUBECTL})


def prom_targets():
    import urllib.request
    with urllib.request.urlopen("http://127.0.0.1:19090/api/v1/targets", timeout=5) as r:
        return json.load(r)["data"]["activeTargets"]


# ---------------------------------------------------------------- the test

def inner(args):
    """Runs inside the network namespace."""
    checks = Checks("k8s.cluster")
    state = args.state
    work = os.path.join(state, "work")
    os.makedirs(work, exist_ok=True)
    kube = Kube(state)
    t0 = time.monotonic()
    timings = {}
    try:
        log("cluster: starting (etcd, apiserver, controller-manager, scheduler, kubelet, kube-proxy)")
        run([os.path.join(K8S, "cluster-up.sh"), state, args.pause_tar,
             *(os.path.join(args.images, f"{image}.tar")
               for image in ("crawler", "crawler-redis", "crawler-browser"))],
            timeout_s=300)
        timings["cluster up"] = time.monotonic() - t0
        hostpath_volumes(kube, state)
        sim_dir = os.path.join(state, "sim")
        scripted_dir = os.path.join(state, "sim-scripted")
        websim_ip = start_websim(kube, sim_dir, scripted_dir)
        log(f"websim: pod ready, Service {websim_ip}:{WEBSIM_PORT}")

        values = chart_values(websim_ip, work)
        chart = os.path.join(ROOT, "helm", "crawler")
        t = time.monotonic()
        kube.helm("install", RELEASE, chart, "-f", values, "--wait", "--timeout", "5m")
        timings["helm install --wait"] = time.monotonic() - t
        pods = kube.crawler_pods()
        log(f"helm install: {len(pods)} pods ready in {timings['helm install --wait']:.0f} s: "
            f"{', '.join(sorted(pods))}")
        checks.check(len(pods) == 7, f"{len(pods)} crawler pods, expected 7")
        # Started together, the fetchers wait for Redis (redis_start_wait) instead of crashing.
        restarted = {n: p["status"]["containerStatuses"][0]["restartCount"] for n, p in pods.items()
                     if p["status"]["containerStatuses"][0]["restartCount"]}
        checks.check(not restarted, f"containers restarted during the install: {restarted}")
        for name, pod in pods.items():
            ctx = pod["spec"]["containers"][0].get("securityContext", {})
            checks.check(ctx.get("readOnlyRootFilesystem") is True and
                         pod["spec"].get("securityContext", {}).get("runAsNonRoot") is True,
                         f"{name}: not read-only or may run as root")

        t = time.monotonic()
        check_cluster_fit(kube, checks)
        timings["service account and disruption budgets"] = time.monotonic() - t

        token = base64.b64decode(kube.json("get", "secret", f"{RELEASE}-admin-token")["data"]["token"])
        token_file = os.path.join(work, "admin.token")
        with open(token_file, "wb") as f:
            f.write(token)
        os.chmod(token_file, 0o600)
        forward = PortForward(kube, work).start()
        ctl = Ctl(args.crawlctl, forward, token_file)
        prom_proc, prom_dir = start_prometheus(kube, state)

        truth = websim_truth(sim_dir)
        expected = truth["page"] | truth["seed"]
        seeds = [l.strip() for l in open(os.path.join(sim_dir, "seeds.txt")) if l.strip()]

        # --- web1: the whole web, undisturbed: every allowed page exactly once
        t = time.monotonic()
        create_collection(ctl, work, "web1", seeds)
        final = wait_finished(ctl, "web1")
        timings["web1 crawl"] = time.monotonic() - t
        requests = websim_requests(sim_dir)
        counts, coverage = check_coverage(checks, requests, truth)
        repeated = {u: n for u, n in counts.items() if n > 1}
        checks.check(not repeated, f"web1: pages fetched more than once: {list(repeated.items())[:5]}")
        check_stats(checks, final, expected, truth, "web1")
        log(f"web1: finished in {timings['web1 crawl']:.0f} s: coverage {coverage:.2f}%, "
            f"{len(requests)} requests, {len(repeated)} pages fetched twice")
        report_restarts(kube)
        web1_requests = len(requests)

        # --- internal authentication (on by default): pods without the credential are refused
        check_intruders(checks, kube)

        # --- web2: a fetcher pod and a frontier pod deleted mid-crawl
        t = time.monotonic()
        create_collection(ctl, work, "web2", seeds)
        wait_until(lambda: pages_of(ctl, "web2") >= len(expected) // 4, 300, "a quarter of web2")
        # URLs on lease around the deletion (sampled just before and just after it): a restarted
        # frontier puts back what it had on lease, and those URLs may be fetched twice.
        samples = [ctl.stats("web2") or {} for _ in range(3)]
        deleted = [f"{RELEASE}-fetcher-0-0", f"{RELEASE}-frontier-1-0"]
        old = {n: p["metadata"]["uid"] for n, p in kube.crawler_pods().items() if n in deleted}
        kube("delete", "pod", *deleted, "--wait=false")
        samples.append(ctl.stats("web2") or {})
        on_lease = max(int(field(x, "in_flight_urls") or 0) for x in samples)
        log(f"web2: {field(samples[0], 'pages')} of {len(expected)} pages, {on_lease} on lease; "
            f"deleted {deleted}")
        wait_rolled(kube, old)
        final = wait_finished(ctl, "web2")
        timings["web2 crawl with pods deleted"] = time.monotonic() - t
        requests = websim_requests(sim_dir)[web1_requests:]
        pages2 = collections.Counter(f"http://{r.host}{r.target}" for r in requests)
        missing = expected - set(pages2)
        refetched = {u: n for u, n in pages2.items() if u in expected and n > 1}
        checks.check(not missing, f"web2: {len(missing)} pages never fetched, e.g. {sorted(missing)[:5]}")
        extra = sum(refetched.values()) - len(refetched)
        checks.check(extra <= on_lease, f"web2: {extra} refetches, more than the {on_lease} URLs "
                                        f"on lease at the deletion")
        check_stats(checks, final, expected, truth, "web2", disturbed=True)
        log(f"web2: finished in {timings['web2 crawl with pods deleted']:.0f} s: {len(expected) - len(missing)}"
            f" of {len(expected)} pages, {extra} refetches ({on_lease} URLs on lease at the deletion)")
        report_restarts(kube)
        web2_end = web1_requests + len(requests)

        # --- web3: helm upgrade mid-crawl changes a key and rolls every pod
        t = time.monotonic()
        create_collection(ctl, work, "web3", seeds)
        wait_until(lambda: pages_of(ctl, "web3") >= len(expected) // 4, 300, "a quarter of web3")
        # Every crawler pod carries the ConfigMap's checksum, so each is replaced; Redis is not
        # configured by it and stays.
        before = {n: p["metadata"]["uid"] for n, p in kube.crawler_pods().items()
                  if n != f"{RELEASE}-redis-0"}
        log(f"web3: {pages_of(ctl, 'web3')} pages; helm upgrade (fetcher popular_cache_entries)")
        kube.helm("upgrade", RELEASE, chart, "-f", values, "--set",
                  "fetcher.config.popular_cache_entries=50000", "--wait", "--timeout", "5m")
        wait_rolled(kube, before)
        forward.stop()
        final = wait_finished(ctl, "web3")
        timings["web3 crawl with upgrade"] = time.monotonic() - t
        logged, malformed = crawl_log_urls(state, "web3")
        missing = expected - set(logged)
        checks.check(not missing, f"web3: {len(missing)} pages lost across the upgrade, e.g. "
                                  f"{sorted(missing)[:5]}")
        checks.check(malformed == 0, f"web3: {malformed} malformed crawl-log lines")
        check_stats(checks, final, expected, truth, "web3", disturbed=True)
        cm = kube.json("get", "configmap", f"{RELEASE}-config")["data"]["fetcher.yaml"]
        checks.check("popular_cache_entries: 50000" in cm, "the upgrade did not change the ConfigMap")
        requests = websim_requests(sim_dir)[web2_end:]
        log(f"web3: finished in {timings['web3 crawl with upgrade']:.0f} s: {len(logged)} pages in the "
            f"crawl logs, {len(missing)} missing, {len(requests)} requests; every crawler pod rolled")

        # --- web4: `helm upgrade --set partitions=3` mid-crawl grows the fleet (a reshard)
        t = time.monotonic()
        web4 = grow_fleet(checks, args, kube, ctl, work, chart, values, seeds, sim_dir, truth)
        timings["web4 crawl with partitions 2 -> 3"] = time.monotonic() - t
        log(f"web4: finished in {timings['web4 crawl with partitions 2 -> 3']:.0f} s: {web4}")

        # --- politeness over the four collections and every restart
        requests = websim_requests(sim_dir)
        smallest, gaps = check_politeness(checks, requests, DELAY_MS, wall_clock=True)
        log(f"politeness: {len(requests)} requests, {gaps} same-host gaps, "
            f"smallest {smallest / 1e6 if smallest else 0:.1f} ms (delay {DELAY_MS} ms)")

        # --- rendering: a web of scripted hosts through the fetchers' browsers
        t = time.monotonic()
        rendered = crawl_rendered(checks, kube, ctl, work, state, scripted_dir, websim_ip)
        timings["rendered crawl"] = time.monotonic() - t
        log(f"rendered: finished in {timings['rendered crawl']:.0f} s: {rendered}")

        # --- the archive: web1 and web3 (its fetchers rolled mid-crawl) pulled out, replayed
        t = time.monotonic()
        check_archive(checks, args, ctl, state, work)
        timings["archive pull and replay"] = time.monotonic() - t

        # --- a collection kept fresh, for the scheduler's re-visit series (its pages are not
        # due again within the test)
        create_collection(ctl, work, "fresh", seeds[:4],
                          "revisit: true\nrevisit_policy: optimal\nrevisit_budget: 100/h\n"
                          "revisit_min_interval: 1h\n")
        wait_until(lambda: pages_of(ctl, "fresh") > 0, 120, "the first pages of collection fresh",
                   poll_s=1)

        # --- Prometheus and the dashboards
        write_targets(kube, prom_dir)
        names = set(kube.crawler_pods()) - {f"{RELEASE}-redis-0"}

        def all_up():
            ts = prom_targets()
            up = {t["labels"].get("pod") for t in ts if t["health"] == "up"}
            return up if names <= up else None
        try:
            up = wait_until(all_up, 120, "Prometheus scraping every crawler pod", poll_s=2)
            log(f"prometheus: {len(up)} pods scraped: {', '.join(sorted(up))}")
        except Fatal as e:
            checks.fail(f"{e}: {[(t['labels'].get('pod'), t['health'], t.get('lastError')) for t in prom_targets()]}")
        dashboards = sorted(os.path.join(ROOT, "deploy", "grafana", "dashboards", f)
                            for f in os.listdir(os.path.join(ROOT, "deploy", "grafana", "dashboards")))

        def queries():
            return run([sys.executable, os.path.join(K8S, "check-dashboard-queries.py"), "--prom",
                        "http://127.0.0.1:19090", *dashboards], check=False)
        # rate() needs two scrapes of a series, the scheduler's gauges a tuning round: give the
        # queries a minute to all return data, then report the last round.
        try:
            wait_until(lambda: queries().returncode == 0, 60, "every dashboard query to return data",
                       poll_s=5)
        except Fatal:
            pass
        out = queries()
        print(out.stdout, flush=True)
        checks.check(out.returncode == 0, f"dashboard queries without data: {out.stderr.strip()}")
        out = run([os.path.join(K8S, "check-dashboard-schema.sh"), *dashboards], check=False)
        checks.check(out.returncode == 0, f"dashboard schema: {out.stdout[-2000:]} {out.stderr[-500:]}")
        prom_proc.terminate()
        prom_proc.wait(timeout=30)
        forward.stop()
    except (Fatal, subprocess.TimeoutExpired) as e:
        checks.fail(str(e))
    timings["total"] = time.monotonic() - t0
    log("timings: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    return checks


def dump_diagnostics(state):
    """On failure: the pods, events and the crawler pods' logs, while the cluster still runs."""
    kube = Kube(state)
    for args in (("get", "pods", "-o", "wide"), ("get", "events", "--sort-by=.lastTimestamp")):
        out = kube(*args, check=False)
        print(out.stdout[-6000:], flush=True)
    for name in sorted(kube.pods()) if os.path.exists(kube.kubeconfig) else []:
        out = kube("logs", name, "--tail", "40", check=False)
        print(f"--- logs of {name}\n{out.stdout[-3000:]}{out.stderr[-500:]}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--keep", action="store_true", help="keep the cluster's state directory")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--state", help=argparse.SUPPRESS)
    p.add_argument("--images", help=argparse.SUPPRESS)
    p.add_argument("--pause-tar", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.build_dir = os.path.abspath(args.build_dir)
    args.crawlctl = os.path.join(args.build_dir, "tools", "crawlctl", "crawlctl")
    if args.inner:
        checks = inner(args)
        if checks.failures:
            dump_diagnostics(args.state)
        return checks.exit_code()

    if os.geteuid() != 0:
        print("k8s.cluster: needs root (network namespace, containerd, kubelet)", flush=True)
        return 1
    for tool in (HELM, KUBECTL, os.path.join(CACHE, "k8s-1.20.2", "kubelet")):
        if not os.access(tool, os.X_OK):
            print(f"k8s.cluster: {tool} is missing: run scripts/k8s/install-tools.sh", flush=True)
            return 1
    # The npm packages of the archive step, into their cache now: inside the namespace there is
    # no route to the registry.
    try:
        npm.warcio_cli()
        npm.replaywebpage_dir()
    except npm.NpmError as e:
        print(f"k8s.cluster: {e}", flush=True)
        return 1
    work = tempfile.mkdtemp(prefix="crawler-k8s-")
    state = os.path.join(work, "cluster")
    images = os.path.join(work, "images")
    rc = 1
    try:
        t = time.monotonic()
        out = run([os.path.join(ROOT, "docker", "build-images.sh"), args.build_dir], timeout_s=900,
                  env={**os.environ, "IMAGE_ARCHIVE_DIR": images})
        log(f"images built in {time.monotonic() - t:.0f} s: " + "; ".join(
            l for l in out.stdout.splitlines() if l.startswith("localhost/")))
        pause_tar = os.path.join(CACHE, "pause-image.tar")
        run([os.path.join(K8S, "pause-image.sh"), pause_tar])
        cmd = [os.path.join(K8S, "in-netns.sh"), sys.executable, os.path.abspath(__file__),
               "--inner", "--build-dir", args.build_dir, "--state", state, "--images", images,
               "--pause-tar", pause_tar]
        rc = subprocess.run(cmd, timeout=3000).returncode
    finally:
        env = {**os.environ, "KEEP_STATE": "1" if args.keep or rc != 0 else "0"}
        t = time.monotonic()
        subprocess.run([os.path.join(K8S, "cluster-down.sh"), state], env=env, timeout=300)
        log(f"cluster down in {time.monotonic() - t:.0f} s")
        shutil.rmtree(images, ignore_errors=True)
        if rc == 0 and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"  files kept in {work}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
