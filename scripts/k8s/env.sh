# Sourced by scripts/k8s/*.sh and tests/k8s: where the Kubernetes tools live on this machine.
# Everything is cached under CRAWLER_K8S_CACHE and made once per machine.
CRAWLER_K8S_CACHE=${CRAWLER_K8S_CACHE:-/var/cache/crawler-k8s}
K8S_VERSION=1.20.2
K8S_BIN=${K8S_BIN:-$CRAWLER_K8S_CACHE/k8s-$K8S_VERSION}
HELM=${HELM:-$CRAWLER_K8S_CACHE/tools/helm/helm}
KUBECTL=${KUBECTL:-$CRAWLER_K8S_CACHE/tools/kubectl/kubectl}
# typescript + @grafana/schema (the dashboards' schema check) and kubernetes-models.
NODE_TOOLS=${NODE_TOOLS:-$CRAWLER_K8S_CACHE/node}
