#!/usr/bin/python3
"""Writes Prometheus file_sd targets for the running pods annotated prometheus.io/scrape=true, for
Prometheus builds without kubernetes_sd_configs (deploy/prometheus/prometheus-file-sd.yml). Each
target carries the labels that prometheus.yml's relabelling gives: namespace, pod, component,
release.

usage: pod-targets.py OUT.json [kubectl args, e.g. --kubeconfig FILE]
The file is replaced atomically (Prometheus may read it at any time)."""
import json
import os
import subprocess
import sys


def targets(pods):
    out = []
    for p in pods["items"]:
        meta, status = p["metadata"], p.get("status", {})
        notes = meta.get("annotations", {})
        labels = meta.get("labels", {})
        ip = status.get("podIP")
        if notes.get("prometheus.io/scrape") != "true" or not ip or status.get("phase") != "Running":
            continue
        if labels.get("app.kubernetes.io/name") != "crawler":
            continue
        out.append({"targets": [f"{ip}:{notes.get('prometheus.io/port', '9102')}"],
                    "labels": {"__metrics_path__": notes.get("prometheus.io/path", "/metrics"),
                               "namespace": meta["namespace"], "pod": meta["name"],
                               "component": labels.get("app.kubernetes.io/component", ""),
                               "release": labels.get("app.kubernetes.io/instance", "")}})
    return out


def main():
    out_path, kubectl_args = sys.argv[1], sys.argv[2:]
    kubectl = os.environ.get("KUBECTL", "kubectl")
    pods = json.loads(subprocess.run([kubectl, *kubectl_args, "get", "pods", "-A", "-o", "json"],
                                     check=True, capture_output=True, text=True).stdout)
    found = targets(pods)
    with open(out_path + ".tmp", "w") as f:
        json.dump(found, f, indent=1)
    os.replace(out_path + ".tmp", out_path)
    print(f"pod-targets: {len(found)} target(s) in {out_path}")


if __name__ == "__main__":
    main()
