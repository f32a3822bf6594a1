{{/* The release's name prefix of every object: "<release>" (or "<release>-crawler" when the
release name does not say crawler), at most 40 characters so that "-frontier-NNN-N" fits the
63 characters of a pod name. */}}
{{- define "crawler.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "crawler.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "frontier" "partition" "0"). */}}
{{- define "crawler.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{ include "crawler.componentLabels" . }}
{{- end -}}

{{/* The labels that tell one component (and partition) apart, same argument. */}}
{{- define "crawler.componentLabels" -}}
app.kubernetes.io/component: {{ .component }}
{{- if hasKey . "partition" }}
crawler.io/partition: {{ .partition | quote }}
{{- end }}
{{- end -}}

{{/* The image of a role's pods (dict "root" $ "role" "fetcher"): with fetcher.browser.enabled the
fetchers run the variant with Chromium, which docker/build-images.sh tags <tag>-browser. */}}
{{- define "crawler.image" -}}
{{- $v := .root.Values -}}
{{ $v.image.repository }}:{{ $v.image.tag | default .root.Chart.AppVersion }}{{ if and (eq .role "fetcher") $v.fetcher.browser.enabled }}-browser{{ end }}
{{- end -}}

{{/* HOST:PORT of one of this release's Services (dict "root" $ "service" "<name>" "port" N):
its DNS name with cluster DNS, else $(<NAME>_SERVICE_HOST), which the kubelet expands in a
container's args from the environment variables of the namespace's Services. */}}
{{- define "crawler.address" -}}
{{- if .root.Values.clusterDNS -}}
{{ .service }}.{{ .root.Release.Namespace }}.svc.{{ .root.Values.clusterDomain }}:{{ .port }}
{{- else -}}
$({{ .service | upper | replace "-" "_" }}_SERVICE_HOST):{{ .port }}
{{- end -}}
{{- end -}}

{{/* The fetchers' politeness store: the bundled Redis, an external one, or none. */}}
{{- define "crawler.redisURL" -}}
{{- if .Values.redis.enabled -}}
redis://{{ include "crawler.address" (dict "root" . "service" (printf "%s-redis" (include "crawler.fullname" .)) "port" 6379) }}
{{- else -}}
{{ .Values.redis.external }}
{{- end -}}
{{- end -}}

{{/* Pod annotations: Prometheus scraping and the checksum of the role's configuration, so that
a changed key rolls the pods. (dict "root" $ "role" "frontier") */}}
{{- define "crawler.podAnnotations" -}}
checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
{{- if .root.Values.metrics.annotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .root.Values.ports.metrics | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end -}}

{{/* Readiness and liveness of a crawlerd role: gRPC health where the cluster has gRPC probes
(1.24+) and the port speaks plaintext (the kubelet's gRPC probe has no TLS), else a TCP connect
to the gRPC port. */}}
{{- define "crawler.probes" -}}
{{- $p := .Values.probes -}}
readinessProbe:
{{- if and (semverCompare ">=1.24-0" .Capabilities.KubeVersion.Version) (not .Values.internalAuth.tls.enabled) }}
  grpc:
    port: {{ .Values.ports.grpc }}
{{- else }}
  tcpSocket:
    port: grpc
{{- end }}
  periodSeconds: {{ $p.readiness.periodSeconds }}
  failureThreshold: {{ $p.readiness.failureThreshold }}
livenessProbe:
  tcpSocket:
    port: grpc
  initialDelaySeconds: {{ $p.liveness.initialDelaySeconds }}
  periodSeconds: {{ $p.liveness.periodSeconds }}
  failureThreshold: {{ $p.liveness.failureThreshold }}
{{- end -}}

{{/* The pod-level parts every workload shares, and its component's scheduling:
(dict "root" $ "component" "frontier"). */}}
{{- define "crawler.podCommon" -}}
{{- $root := .root -}}
{{- $v := index $root.Values .component -}}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
{{- toYaml . | nindent 2 }}
{{- end }}
serviceAccountName: {{ include "crawler.serviceAccountName" $root }}
automountServiceAccountToken: {{ $root.Values.serviceAccount.automountToken }}
securityContext:
{{- toYaml $root.Values.podSecurityContext | nindent 2 }}
enableServiceLinks: {{ not $root.Values.clusterDNS }}
{{- if not $root.Values.clusterDNS }}
dnsPolicy: Default
{{- end }}
{{- with ($v.nodeSelector | default $root.Values.nodeSelector) }}
nodeSelector:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($v.tolerations | default $root.Values.tolerations) }}
tolerations:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($v.affinity | default $root.Values.affinity) }}
affinity:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- $spread := $v.topologySpreadConstraints | default $root.Values.topologySpreadConstraints | default list }}
{{- if $v.spreadAcrossNodes }}
{{- $selector := include "crawler.selector" (dict "root" $root "component" .component) | fromYaml }}
{{- $spread = append $spread (dict "maxSkew" 1 "topologyKey" "kubernetes.io/hostname" "whenUnsatisfiable" "ScheduleAnyway" "labelSelector" (dict "matchLabels" $selector)) }}
{{- end }}
{{- with $spread }}
topologySpreadConstraints:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($v.priorityClassName | default $root.Values.priorityClassName) }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- end -}}

{{- define "crawler.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "crawler.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* The persistent volume claim template "data" of a StatefulSet (its storage block). */}}
{{- define "crawler.dataClaim" -}}
volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      {{- with .storageClassName }}
      storageClassName: {{ . | quote }}
      {{- end }}
      resources:
        requests:
          storage: {{ .size }}
{{- end -}}

{{- define "crawler.adminSecretName" -}}
{{- .Values.adminToken.existingSecret | default (printf "%s-admin-token" (include "crawler.fullname" .)) -}}
{{- end -}}

{{- define "crawler.internalTokenSecretName" -}}
{{- .Values.internalAuth.token.existingSecret | default (printf "%s-internal-token" (include "crawler.fullname" .)) -}}
{{- end -}}

{{- define "crawler.internalTLSSecretName" -}}
{{- .Values.internalAuth.tls.existingSecret | default (printf "%s-internal-tls" (include "crawler.fullname" .)) -}}
{{- end -}}

{{/* A role's configuration keys for internalAuth (dict "root" $ "role" "fetcher"): the token it
requires and sends, its certificate as a server and (fetcher, scheduler) as a client, the CA it
checks both ways, and the name every role's certificate carries. As YAML, for the ConfigMap. */}}
{{- define "crawler.internalAuthConfig" -}}
{{- $auth := .root.Values.internalAuth -}}
{{- $out := dict -}}
{{- if $auth.token.enabled -}}
{{- $_ := set $out "internal_token_file" "/etc/crawler/internal-token/token" -}}
{{- end -}}
{{- if $auth.tls.enabled -}}
{{- $dir := "/etc/crawler/internal-tls" -}}
{{- $_ := set $out "tls_cert_file" (printf "%s/%s.crt" $dir .role) -}}
{{- $_ := set $out "tls_key_file" (printf "%s/%s.key" $dir .role) -}}
{{- $_ := set $out "tls_client_ca_file" (printf "%s/ca.crt" $dir) -}}
{{- if has .role (list "fetcher" "scheduler") -}}
{{- $_ := set $out "peer_tls_ca_file" (printf "%s/ca.crt" $dir) -}}
{{- $_ := set $out "peer_tls_cert_file" (printf "%s/%s.crt" $dir .role) -}}
{{- $_ := set $out "peer_tls_key_file" (printf "%s/%s.key" $dir .role) -}}
{{- $_ := set $out "peer_tls_server_name" "crawler-internal" -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
