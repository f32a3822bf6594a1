#!/usr/bin/env bash
# Starts a real single-node Kubernetes 1.20 (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet on containerd with the CNI bridge, kube-proxy in iptables mode) with
# its state, logs and PID files in STATE, and imports the given image archives (docker-archive
# tars) into its containerd.
#
# Run it inside a network namespace of its own (scripts/k8s/in-netns.sh): everything listens on
# that namespace's loopback, pods get 10.244.0.0/24 on a bridge there, Services 10.96.0.0/16,
# and none of it has a route out. Cluster DNS is not provided.
#
# usage: cluster-up.sh STATE_DIR PAUSE_IMAGE_TAR [IMAGE_TAR...]
# then:  KUBECONFIG=STATE_DIR/admin.kubeconfig kubectl ...        (scripts/k8s/cluster-down.sh)
set -euo pipefail
. "$(dirname "$0")/env.sh"
STATE=$1; pause_tar=$2; shift 2
mkdir -p "$STATE"/{pki,logs,cni,containerd,kubelet}
STATE=$(cd "$STATE" && pwd); cd "$STATE"
start() { local name=$1; shift; nohup "$@" > "logs/$name.log" 2>&1 & echo $! > "$name.pid"; }
# Waits up to $1 seconds for the command that follows to succeed.
wait_for() { local n=$1; shift; for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done; echo "cluster-up: timed out waiting for: $*" >&2; return 1; }
# Only in a namespace of its own: this script adds a bridge, a default route and iptables rules.
if [ "$(ip -o link show | grep -vc ': lo:')" != 0 ] && [ ! -f "$STATE/netns-ok" ]; then
  echo "cluster-up: this network namespace has interfaces besides lo; run me through scripts/k8s/in-netns.sh" >&2
  exit 2
fi
touch "$STATE/netns-ok"
ip link set lo up
# The kubelet takes the node's address from the interface of the default route: one end of a
# veth pair whose other end is in this namespace too (and has no address) gives it one, and the
# namespace still has no way out.
ip link add crawler0 type veth peer name crawler1
ip addr add 10.250.0.1/32 dev crawler0
ip link set crawler0 up
ip link set crawler1 up
ip route add default dev crawler0

# PKI: a CA, the apiserver's serving certificate, an admin client in system:masters, the
# service-account key pair.
if [ ! -f pki/ca.crt ]; then (cd pki
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj /CN=crawler-test-ca 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost,IP:127.0.0.1,IP:10.96.0.1\nextendedKeyUsage=serverAuth\n' > san.ext
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile san.ext 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
  echo extendedKeyUsage=clientAuth > client.ext
  openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 -extfile client.ext 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null; openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null); fi
KC=$STATE/admin.kubeconfig
"$KUBECTL" --kubeconfig "$KC" config set-cluster local --server=https://127.0.0.1:6443 --certificate-authority=pki/ca.crt --embed-certs >/dev/null
"$KUBECTL" --kubeconfig "$KC" config set-credentials admin --client-certificate=pki/admin.crt --client-key=pki/admin.key --embed-certs >/dev/null
"$KUBECTL" --kubeconfig "$KC" config set-context local --cluster=local --user=admin >/dev/null
"$KUBECTL" --kubeconfig "$KC" config use-context local >/dev/null

# containerd: state under STATE, the local pause image as sandbox, the CNI bridge, and
# restrict_oom_score_adj (a VM without CAP_SYS_RESOURCE refuses negative OOM scores otherwise).
cat > cni/10-bridge.conflist <<'J'
{"cniVersion":"0.4.0","name":"crawler-test","plugins":[
 {"type":"bridge","bridge":"kcni0","isGateway":true,"ipMasq":false,"hairpinMode":true,
  "ipam":{"type":"host-local","ranges":[[{"subnet":"10.244.0.0/24"}]],"routes":[{"dst":"0.0.0.0/0"}]}},
 {"type":"portmap","capabilities":{"portMappings":true}}]}
J
containerd config default | sed \
  -e "s|^root = .*|root = \"$STATE/containerd/root\"|" -e "s|^state = .*|state = \"$STATE/containerd/state\"|" \
  -e "s|  address = \"/run/containerd/containerd.sock\"|  address = \"$STATE/containerd/containerd.sock\"|" \
  -e 's|sandbox_image = .*|sandbox_image = "localhost/pause:local"|' -e 's|bin_dir = "/opt/cni/bin"|bin_dir = "/usr/lib/cni"|' \
  -e "s|conf_dir = \"/etc/cni/net.d\"|conf_dir = \"$STATE/cni\"|" -e 's|restrict_oom_score_adj = false|restrict_oom_score_adj = true|' > containerd.toml
SOCK=$STATE/containerd/containerd.sock
start containerd containerd --config containerd.toml
wait_for 30 ctr -a "$SOCK" version
for tar in "$pause_tar" "$@"; do ctr -a "$SOCK" -n k8s.io images import "$tar" >/dev/null; done

start etcd etcd --name local --data-dir "$STATE/etcd" --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster local=http://127.0.0.1:2380
start kube-apiserver "$K8S_BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 --bind-address=127.0.0.1 --secure-port=6443 \
  --advertise-address=127.0.0.1 --insecure-port=0 --tls-cert-file=pki/apiserver.crt --tls-private-key-file=pki/apiserver.key \
  --client-ca-file=pki/ca.crt --service-account-key-file=pki/sa.pub --service-account-signing-key-file=pki/sa.key \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-cluster-ip-range=10.96.0.0/16 \
  --authorization-mode=Node,RBAC --allow-privileged=true --kubelet-preferred-address-types=Hostname \
  --kubelet-client-certificate=pki/admin.crt --kubelet-client-key=pki/admin.key
wait_for 90 "$KUBECTL" --kubeconfig "$KC" get --raw /readyz
start kube-controller-manager "$K8S_BIN/kube-controller-manager" --kubeconfig="$KC" --authentication-kubeconfig="$KC" \
  --authorization-kubeconfig="$KC" --bind-address=127.0.0.1 --leader-elect=false --service-account-private-key-file=pki/sa.key \
  --root-ca-file=pki/ca.crt --cluster-signing-cert-file=pki/ca.crt --cluster-signing-key-file=pki/ca.key \
  --service-cluster-ip-range=10.96.0.0/16
start kube-scheduler "$K8S_BIN/kube-scheduler" --kubeconfig="$KC" --authentication-kubeconfig="$KC" --authorization-kubeconfig="$KC" \
  --bind-address=127.0.0.1 --leader-elect=false

# The node, named "localhost" so that the apiserver reaches the kubelet (logs, exec,
# port-forward) on 127.0.0.1. Pods get a resolver that answers nothing: there is no cluster DNS.
echo 'nameserver 127.0.0.53' > pod-resolv.conf
cat > kubelet.yaml <<Y
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
failSwapOn: false
clusterDomain: cluster.local
resolvConf: $STATE/pod-resolv.conf
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
# No image garbage collection: this containerd's images are the ones imported above, used by the
# test's pods and thrown away with STATE. At the default threshold (85% of the disk used, which
# the kubelet counts as 100% less what is available to non-root users) a busy shared disk has
# the kubelet delete every image not yet in use by a pod -- the pause image among them -- two
# minutes after it first saw them, and a pod slow to start then never starts.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
Y
start kubelet "$K8S_BIN/kubelet" --kubeconfig="$KC" --config=kubelet.yaml --container-runtime=remote \
  --container-runtime-endpoint="unix://$SOCK" --root-dir="$STATE/kubelet" --cert-dir="$STATE/kubelet/pki" --hostname-override=localhost
start kube-proxy "$K8S_BIN/kube-proxy" --kubeconfig="$KC" --proxy-mode=iptables --cluster-cidr=10.244.0.0/16 --hostname-override=localhost \
  --bind-address=127.0.0.1 --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=127.0.0.1:10256 --conntrack-max-per-core=0
node_ready() { [ "$("$KUBECTL" --kubeconfig "$KC" get node localhost -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
wait_for 120 node_ready
wait_for 60 "$KUBECTL" --kubeconfig "$KC" get serviceaccount default
echo "cluster-up: ready (KUBECONFIG=$KC)"
