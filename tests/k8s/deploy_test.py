#!/usr/bin/env python3
"""Offline checks of what deploys the crawler (no cluster needed):

  chart        `helm lint`; `helm template` with cluster DNS and without, with an external
               Redis and with N = 3; every rendered object validated by kubernetes-models (npm);
               values.schema.json rejects bad values; the topology flags each pod gets (partition,
               every frontier in partition order, Redis) and the security context of every pod;
               fetcher.browser off and on (the fetchers' image, /tmp and browser_no_sandbox)
  rules        `promtool check rules` and `promtool test rules` of deploy/prometheus; `promtool
               check config` of the file_sd scrape configuration; the kubernetes_sd one relabels
               as the file_sd targets are labelled
  dashboards   the committed JSON is what deploy/grafana/dashboards.py writes; every query's
               PromQL parses (promtool); every dashboard matches Grafana's schema types

usage: deploy_test.py --scenario chart|rules|dashboards
"""

import argparse
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

from crawlertest.e2e import Checks  # noqa: E402

CACHE = os.environ.get("CRAWLER_K8S_CACHE", "/var/cache/crawler-k8s")
HELM = os.path.join(CACHE, "tools", "helm", "helm")
NODE_TOOLS = os.path.join(CACHE, "node")
CHART = os.path.join(ROOT, "helm", "crawler")
K8S = os.path.join(ROOT, "scripts", "k8s")


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)


def render(*sets):
    args = [HELM, "template", "crawler", CHART, "--namespace", "crawl"]
    for s in sets:
        args += ["--set", s]
    return run(args)


def validate_with_node(checks, manifest_text, what):
    """kubernetes-models validation of every object; returns the objects as JSON."""
    script = os.path.join(HERE, "validate_manifests.mjs")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(manifest_text)
    try:
        out = run(["node", script, f.name], env={**os.environ, "NODE_TOOLS": NODE_TOOLS})
    finally:
        os.unlink(f.name)
    checks.check(out.returncode == 0, f"{what}: manifests invalid: {out.stderr.strip()[-2000:]}")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return []


def pod_specs(objs):
    return {o["metadata"]["name"]: o["spec"]["template"]["spec"] for o in objs
            if o["kind"] in ("StatefulSet", "Deployment")}


def scenario_chart(checks):
    out = run([HELM, "lint", "--strict", CHART])
    checks.check(out.returncode == 0, f"helm lint: {out.stdout[-1500:]} {out.stderr[-500:]}")

    # Cluster DNS (the default): peers by their Services' names.
    out = render()
    checks.check(out.returncode == 0, f"helm template: {out.stderr.strip()}")
    objs = validate_with_node(checks, out.stdout, "default values")
    kinds = sorted(f"{o['kind']}/{o['metadata']['name']}" for o in objs)
    print(f"  default values: {len(objs)} objects: {', '.join(kinds)}", flush=True)
    specs = pod_specs(objs)
    checks.check(sorted(specs) == sorted(["crawler-frontier-0", "crawler-frontier-1",
                                          "crawler-fetcher-0", "crawler-fetcher-1",
                                          "crawler-dedup", "crawler-scheduler", "crawler-redis"]),
                 f"workloads: {sorted(specs)}")
    frontiers = ["crawler-frontier-0.crawl.svc.cluster.local:7000",
                 "crawler-frontier-1.crawl.svc.cluster.local:7000"]
    fetcher1 = specs.get("crawler-fetcher-1", {}).get("containers", [{}])[0].get("args", [])
    checks.check(fetcher1[:3] == ["fetcher", "--config", "/etc/crawler/fetcher.yaml"] and
                 "--partition" in fetcher1 and fetcher1[fetcher1.index("--partition") + 1] == "1",
                 f"fetcher 1's args: {fetcher1}")
    got = [fetcher1[i + 1] for i, a in enumerate(fetcher1) if a == "--frontier"]
    checks.check(got == frontiers, f"fetcher 1's frontiers {got}, expected {frontiers}")
    checks.check("redis://crawler-redis.crawl.svc.cluster.local:6379" in fetcher1,
                 f"fetcher 1 not given the bundled Redis: {fetcher1}")
    for name, spec in specs.items():
        pod, ctr = spec.get("securityContext", {}), spec["containers"][0].get("securityContext", {})
        checks.check(pod.get("runAsNonRoot") is True and ctr.get("readOnlyRootFilesystem") is True
                     and ctr.get("allowPrivilegeEscalation") is False,
                     f"{name}: security context {pod} {ctr}")
        probes = spec["containers"][0]
        checks.check("readinessProbe" in probes and "livenessProbe" in probes, f"{name}: probes missing")
    sts = {o["metadata"]["name"]: o for o in objs if o["kind"] == "StatefulSet"}
    for name, o in sts.items():
        claims = o["spec"].get("volumeClaimTemplates", [])
        checks.check(len(claims) == 1 and claims[0]["metadata"]["name"] == "data",
                     f"{name}: volume claim templates {claims}")
        notes = o["spec"]["template"]["metadata"].get("annotations", {})
        if name != "crawler-redis":  # configured by its args, not scraped (no exporter)
            checks.check("checksum/config" in notes, f"{name}: no config checksum annotation")
            checks.check(notes.get("prometheus.io/scrape") == "true", f"{name}: not annotated for scraping")
    cms = [o for o in objs if o["kind"] == "ConfigMap"]
    checks.check(len(cms) == 1 and sorted(cms[0]["data"]) ==
                 ["dedup.yaml", "fetcher.yaml", "frontier.yaml", "scheduler.yaml"],
                 f"config maps: {[sorted(c['data']) for c in cms]}")
    checks.check(any(o["kind"] == "NetworkPolicy" for o in objs), "no NetworkPolicy")
    checks.check(any(o["kind"] == "Secret" for o in objs), "no admin token Secret")
    # Internal authentication on by default: the token and the CA with a certificate per role,
    # each role's configuration pointing at them, each pod mounting its own certificate only.
    secrets = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Secret"}
    tls = secrets.get("crawler-internal-tls", {}).get("data", {})
    checks.check("crawler-internal-token" in secrets and sorted(tls) == sorted(
        ["ca.crt"] + [f"{r}.{e}" for r in ("frontier", "fetcher", "dedup", "scheduler")
                      for e in ("crt", "key")]), f"internal auth Secrets: {sorted(secrets)}")
    for role in ("frontier", "fetcher", "dedup", "scheduler"):
        text = cms[0]["data"][f"{role}.yaml"] if cms else ""
        checks.check(f"tls_cert_file: /etc/crawler/internal-tls/{role}.crt" in text and
                     "tls_client_ca_file:" in text and "internal_token_file:" in text,
                     f"{role}.yaml lacks the internal credentials: {text}")
    vols = {v["name"]: v for v in specs.get("crawler-dedup", {}).get("volumes", [])}
    items = [i["key"] for i in vols.get("internal-tls", {}).get("secret", {}).get("items", [])]
    checks.check(items == ["ca.crt", "dedup.crt", "dedup.key"], f"dedup mounts {items}")
    out = render("internalAuth.tls.enabled=false", "internalAuth.token.enabled=false")
    objs = validate_with_node(checks, out.stdout, "internal authentication off")
    checks.check(not any(o["kind"] == "Secret" and "internal" in o["metadata"]["name"]
                         for o in objs), "internal Secrets rendered with internalAuth off")
    # The kubelet's gRPC probe speaks no TLS: with mutual TLS the probes connect over TCP.
    grpc_probe = re.compile(r"readinessProbe:\s*\n\s*grpc:")
    out = run([HELM, "template", "crawler", CHART, "--kube-version", "1.26.0"])
    checks.check(out.returncode == 0 and not grpc_probe.search(out.stdout),
                 "gRPC probes against a TLS port on Kubernetes 1.26")
    out = run([HELM, "template", "crawler", CHART, "--kube-version", "1.26.0", "--set",
               "internalAuth.tls.enabled=false"])
    checks.check(out.returncode == 0 and grpc_probe.search(out.stdout),
                 "no gRPC probes on Kubernetes 1.26 with plaintext internal ports")

    # No cluster DNS: the kubelet expands $(NAME_SERVICE_HOST) from the Services' variables.
    out = render("clusterDNS=false", "partitions=3")
    objs = validate_with_node(checks, out.stdout, "clusterDNS=false, N=3")
    spec = pod_specs(objs).get("crawler-fetcher-2", {})
    args = spec.get("containers", [{}])[0].get("args", [])
    got = [args[i + 1] for i, a in enumerate(args) if a == "--frontier"]
    checks.check(got == [f"$(CRAWLER_FRONTIER_{k}_SERVICE_HOST):7000" for k in range(3)],
                 f"without DNS, fetcher 2's frontiers: {got}")
    checks.check(spec.get("enableServiceLinks") is True, "without DNS, service links are off")
    checks.check("redis://$(CRAWLER_REDIS_SERVICE_HOST):6379" in args, f"without DNS, Redis: {args}")

    # An external Redis with a password, and two fetchers per partition.
    out = render("redis.enabled=false", "redis.external=redis://redis.example:6380/2",
                 "redis.passwordSecret=redis-pw", "fetcher.replicasPerPartition=2")
    objs = validate_with_node(checks, out.stdout, "external Redis")
    specs = pod_specs(objs)
    args = specs.get("crawler-fetcher-0", {}).get("containers", [{}])[0].get("args", [])
    checks.check("crawler-redis" not in specs and "redis://redis.example:6380/2" in args and
                 "/etc/crawler/redis/password" in args, f"external Redis: {sorted(specs)} {args}")
    replicas = [o["spec"]["replicas"] for o in objs if o["metadata"]["name"] == "crawler-fetcher-0"]
    checks.check(replicas == [2], f"fetcher replicas per partition: {replicas}")

    # The fetchers' browser: off by default (the plain image, a small /tmp, Chromium's sandbox
    # not turned off); on, the fetchers alone run the -browser tag with a /tmp of tmpSize and
    # browser_no_sandbox in their configuration.
    check_browser_values(checks, render(), False, "0.1.0", "64Mi")
    check_browser_values(checks, render("fetcher.browser.enabled=true"), True, "0.1.0-browser", "256Mi")
    check_browser_values(checks, render("fetcher.browser.enabled=true", "fetcher.browser.tmpSize=3Gi",
                                        "image.tag=v9"), True, "v9-browser", "3Gi")

    # What a real cluster's operator expects: a ServiceAccount without a token, disruption
    # budgets in the API the cluster has, frontier partitions spread over the nodes, and each
    # component's own scheduling, priority and extra env/volumes over the chart-wide ones.
    out = render()
    objs = validate_with_node(checks, out.stdout, "default values")
    accounts = [o["metadata"]["name"] for o in objs if o["kind"] == "ServiceAccount"]
    checks.check(accounts == ["crawler"] and all(
        o["automountServiceAccountToken"] is False for o in objs if o["kind"] == "ServiceAccount"),
        f"service accounts: {accounts}")
    for name, spec in pod_specs(objs).items():
        checks.check(spec.get("serviceAccountName") == "crawler" and
                     spec.get("automountServiceAccountToken") is False,
                     f"{name}: service account {spec.get('serviceAccountName')}, token "
                     f"{spec.get('automountServiceAccountToken')}")
    budgets = {o["metadata"]["name"]: o for o in objs if o["kind"] == "PodDisruptionBudget"}
    checks.check(sorted(budgets) == ["crawler-fetcher", "crawler-frontier"] and all(
        b["apiVersion"] == "policy/v1" and b["spec"]["maxUnavailable"] == 1 and
        b["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] in b["metadata"]["name"]
        for b in budgets.values()), f"disruption budgets: {budgets}")
    spread = pod_specs(objs).get("crawler-frontier-1", {}).get("topologySpreadConstraints", [])
    checks.check(len(spread) == 1 and spread[0]["topologyKey"] == "kubernetes.io/hostname" and
                 spread[0]["whenUnsatisfiable"] == "ScheduleAnyway" and
                 "crawler.io/partition" not in spread[0]["labelSelector"]["matchLabels"],
                 f"frontier 1 is not spread with every partition: {spread}")
    checks.check("topologySpreadConstraints" not in pod_specs(objs).get("crawler-dedup", {}),
                 "dedup spread by default")
    out = run([HELM, "template", "crawler", CHART, "--kube-version", "1.20.0"])
    objs = validate_with_node(checks, out.stdout, "Kubernetes 1.20")
    versions = sorted({o["apiVersion"] for o in objs if o["kind"] == "PodDisruptionBudget"})
    checks.check(versions == ["policy/v1beta1"], f"disruption budgets on 1.20: {versions}")
    out = render("nodeSelector.disk=ssd", "frontier.nodeSelector.disk=nvme",
                 "tolerations[0].key=crawl", "tolerations[0].operator=Exists",
                 "fetcher.priorityClassName=crawl-high", "frontier.spreadAcrossNodes=false",
                 "fetcher.extraEnv[0].name=TZ", "fetcher.extraEnv[0].value=UTC",
                 "fetcher.extraVolumes[0].name=cache", "fetcher.extraVolumes[0].emptyDir.medium=Memory",
                 "fetcher.extraVolumeMounts[0].name=cache",
                 "fetcher.extraVolumeMounts[0].mountPath=/cache",
                 "serviceAccount.create=false", "podDisruptionBudget.enabled=false")
    objs = validate_with_node(checks, out.stdout, "scheduling values")
    specs = pod_specs(objs)
    frontier, fetcher = specs.get("crawler-frontier-0", {}), specs.get("crawler-fetcher-0", {})
    checks.check(frontier.get("nodeSelector") == {"disk": "nvme"} and
                 fetcher.get("nodeSelector") == {"disk": "ssd"} and
                 fetcher.get("tolerations") == [{"key": "crawl", "operator": "Exists"}],
                 f"node selectors {frontier.get('nodeSelector')} {fetcher.get('nodeSelector')}")
    checks.check("topologySpreadConstraints" not in frontier, "frontier spread when turned off")
    checks.check(fetcher.get("priorityClassName") == "crawl-high" and
                 "priorityClassName" not in frontier, "priority class")
    container = fetcher.get("containers", [{}])[0]
    checks.check(container.get("env") == [{"name": "TZ", "value": "UTC"}] and
                 {"name": "cache", "mountPath": "/cache"} in container.get("volumeMounts", []) and
                 {"name": "cache", "emptyDir": {"medium": "Memory"}} in fetcher.get("volumes", []),
                 f"fetcher extras: {container.get('env')} {container.get('volumeMounts')}")
    checks.check(not any(o["kind"] in ("ServiceAccount", "PodDisruptionBudget") for o in objs) and
                 frontier.get("serviceAccountName") == "default",
                 "serviceAccount.create=false or podDisruptionBudget.enabled=false still made one")

    # The Prometheus Operator's objects, off by default; the rules are files/alerts.yml's.
    checks.check(not any(o["apiVersion"].startswith("monitoring.coreos.com") for o in objs),
                 "Prometheus Operator objects by default")
    out = render("metrics.podMonitor.enabled=true", "metrics.podMonitor.labels.release=kps",
                 "metrics.prometheusRule.enabled=true")
    objs = validate_with_node(checks, out.stdout, "Prometheus Operator objects")
    monitors = [o for o in objs if o["kind"] == "PodMonitor"]
    rules = [o for o in objs if o["kind"] == "PrometheusRule"]
    checks.check(len(monitors) == 1 and monitors[0]["metadata"]["labels"].get("release") == "kps"
                 and monitors[0]["spec"]["podMetricsEndpoints"][0]["port"] == "metrics",
                 f"PodMonitor: {monitors}")
    read = run(["node", "-e", "const { parse } = require(process.env.NODE_TOOLS + "
                "'/node_modules/yaml'); console.log(JSON.stringify(parse(require('fs')"
                ".readFileSync(process.argv[1], 'utf8'))))",
                os.path.join(ROOT, "deploy", "prometheus", "alerts.yml")],
               env={**os.environ, "NODE_TOOLS": NODE_TOOLS})
    alerts = json.loads(read.stdout) if read.returncode == 0 else read.stderr
    checks.check(len(rules) == 1 and rules[0]["spec"] == alerts,
                 "the PrometheusRule's groups are not deploy/prometheus/alerts.yml's")

    # Values the schema or the templates refuse, each with a message naming the value.
    for sets, words in [(["partitions=0"], "partitions"),
                        (["redis.external=http://x"], "redis.external"),
                        (["fetcher.replicasPerPartition=2", "redis.enabled=false"], "Redis"),
                        (["unknownKey=1"], "unknownKey"),
                        (["image.pullPolicy=Sometimes"], "pullPolicy"),
                        (["podDisruptionBudget.maxUnavailable=0"], "maxUnavailable"),
                        (["frontier.extraEnv[0].value=x"], "name"),
                        (["metrics.podMonitor.interval=often"], "interval"),
                        (["fetcher.browser.tmpSize=lots"], "tmpSize"),
                        (["fetcher.browser.enable=true"], "enable")]:
        out = render(*sets)
        checks.check(out.returncode != 0 and words in out.stderr,
                     f"helm template {sets} should fail naming {words}: {out.stderr.strip()[-300:]}")


def check_browser_values(checks, out, enabled, fetcher_tag, fetcher_tmp):
    """One rendering of the chart with fetcher.browser.enabled = `enabled`: every fetcher on
    localhost/crawler:`fetcher_tag` with a /tmp of `fetcher_tmp`, the other roles on the plain
    image with 64Mi, browser_no_sandbox in fetcher.yaml exactly when enabled."""
    what = f"fetcher.browser.enabled={enabled}"
    checks.check(out.returncode == 0, f"{what}: helm template: {out.stderr.strip()[-500:]}")
    objs = validate_with_node(checks, out.stdout, what)
    plain = fetcher_tag.removesuffix("-browser")
    for name, spec in pod_specs(objs).items():
        if name == "crawler-redis":
            continue
        fetcher = name.startswith("crawler-fetcher-")
        image = spec["containers"][0]["image"]
        tmp = [v.get("emptyDir", {}).get("sizeLimit") for v in spec["volumes"] if v["name"] == "tmp"]
        want = (fetcher_tag, fetcher_tmp) if fetcher else (plain, "64Mi")
        checks.check(image == f"localhost/crawler:{want[0]}" and tmp == [want[1]],
                     f"{what}: {name} runs {image} with /tmp {tmp}, want {want}")
    cms = [o for o in objs if o["kind"] == "ConfigMap"]
    data = cms[0]["data"] if cms else {}
    sandbox = {role: "browser_no_sandbox: true" in text for role, text in data.items()}
    checks.check(sandbox == {r: enabled and r == "fetcher.yaml"
                             for r in ("frontier.yaml", "fetcher.yaml", "dedup.yaml", "scheduler.yaml")},
                 f"{what}: browser_no_sandbox by role: {sandbox}")


def scenario_rules(checks):
    prom = os.path.join(ROOT, "deploy", "prometheus")
    out = run(["promtool", "check", "rules", os.path.join(prom, "alerts.yml")])
    checks.check(out.returncode == 0, f"promtool check rules: {out.stdout} {out.stderr}")
    out = run(["promtool", "test", "rules", "alerts_test.yml"], cwd=prom)
    print(out.stdout.strip(), flush=True)
    checks.check(out.returncode == 0, f"promtool test rules: {out.stdout[-3000:]} {out.stderr}")
    out = run(["promtool", "check", "config", "prometheus-file-sd.yml"], cwd=prom)
    checks.check(out.returncode == 0, f"promtool check config: {out.stdout} {out.stderr}")
    # Debian's promtool cannot parse kubernetes_sd_configs; check that prometheus.yml relabels
    # pods to the labels pod-targets.py gives file_sd targets, and loads the same rules.
    text = open(os.path.join(prom, "prometheus.yml")).read()
    for label in ("namespace", "pod", "component", "release", "__metrics_path__", "__address__"):
        checks.check(f"target_label: {label}" in text, f"prometheus.yml does not set {label}")
    checks.check("- alerts.yml" in text and "role: pod" in text, "prometheus.yml: rules or pod role")
    import importlib.util
    spec = importlib.util.spec_from_file_location("pod_targets", os.path.join(K8S, "pod-targets.py"))
    pod_targets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pod_targets)
    pods = {"items": [
        {"metadata": {"name": "crawler-fetcher-0-0", "namespace": "crawl",
                      "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9102"},
                      "labels": {"app.kubernetes.io/name": "crawler",
                                 "app.kubernetes.io/component": "fetcher",
                                 "app.kubernetes.io/instance": "crawler"}},
         "status": {"podIP": "10.0.0.7", "phase": "Running"}},
        {"metadata": {"name": "other", "namespace": "crawl", "annotations": {"prometheus.io/scrape": "true"},
                      "labels": {}}, "status": {"podIP": "10.0.0.8", "phase": "Running"}},
        {"metadata": {"name": "pending", "namespace": "crawl",
                      "annotations": {"prometheus.io/scrape": "true"},
                      "labels": {"app.kubernetes.io/name": "crawler"}}, "status": {"phase": "Pending"}},
    ]}
    got = pod_targets.targets(pods)
    checks.check(got == [{"targets": ["10.0.0.7:9102"], "labels": {
        "__metrics_path__": "/metrics", "namespace": "crawl", "pod": "crawler-fetcher-0-0",
        "component": "fetcher", "release": "crawler"}}], f"pod-targets: {got}")


def scenario_dashboards(checks):
    committed = os.path.join(ROOT, "deploy", "grafana", "dashboards")
    with tempfile.TemporaryDirectory() as d:
        out = run([sys.executable, os.path.join(ROOT, "deploy", "grafana", "dashboards.py"), d])
        checks.check(out.returncode == 0, f"dashboards.py: {out.stderr}")
        fresh = sorted(os.listdir(d))
        checks.check(fresh == sorted(os.listdir(committed)),
                     f"dashboards.py writes {fresh}, committed {sorted(os.listdir(committed))}")
        for name in fresh:
            checks.check(os.path.exists(os.path.join(committed, name)) and
                         filecmp.cmp(os.path.join(d, name), os.path.join(committed, name), shallow=False),
                         f"{name}: committed JSON differs from dashboards.py's output (run it)")
    files = sorted(os.path.join(committed, f) for f in os.listdir(committed))
    out = run([sys.executable, os.path.join(K8S, "check-dashboard-queries.py"), *files])
    print(out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr, flush=True)
    checks.check(out.returncode == 0, f"dashboard PromQL: {out.stdout[-2000:]}")
    out = run([os.path.join(K8S, "check-dashboard-schema.sh"), *files])
    print(out.stdout.strip(), flush=True)
    checks.check(out.returncode == 0, f"dashboard schema: {out.stdout[-2000:]} {out.stderr[-500:]}")
    for f in files:
        d = json.load(open(f))
        checks.check(all(p.get("targets") for p in d["panels"]), f"{f}: a panel without queries")
    provisioning = os.path.join(ROOT, "deploy", "grafana", "provisioning")
    checks.check(os.path.exists(os.path.join(provisioning, "dashboards", "crawler.yaml")) and
                 os.path.exists(os.path.join(provisioning, "datasources", "crawler-prometheus.yaml")),
                 "provisioning files missing")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenario", required=True, choices=["chart", "rules", "dashboards"])
    args = p.parse_args()
    checks = Checks(f"k8s.deploy_{args.scenario}")
    {"chart": scenario_chart, "rules": scenario_rules, "dashboards": scenario_dashboards}[args.scenario](checks)
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
