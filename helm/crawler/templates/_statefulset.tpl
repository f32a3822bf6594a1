{{/* One crawlerd role as a StatefulSet with its data volume claim:
(dict "root" $ "role" "frontier" "name" "<object name>" "service" "<governing Service>"
      "replicas" N "partition" k (optional) "args" (list ...) "adminToken" bool) */}}
{{- define "crawler.statefulset" -}}
{{- $root := .root -}}
{{- $v := index $root.Values .role -}}
{{- $sel := dict "root" $root "component" .role -}}
{{- if hasKey . "partition" }}{{- $_ := set $sel "partition" .partition -}}{{- end }}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .name }}
  labels:
    {{- include "crawler.labels" $root | nindent 4 }}
    {{- include "crawler.componentLabels" $sel | nindent 4 }}
spec:
  serviceName: {{ .service }}
  replicas: {{ .replicas }}
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  selector:
    matchLabels:
      {{- include "crawler.selector" $sel | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "crawler.labels" $root | nindent 8 }}
        {{- include "crawler.componentLabels" $sel | nindent 8 }}
      annotations:
        {{- include "crawler.podAnnotations" (dict "root" $root) | nindent 8 }}
    spec:
      {{- include "crawler.podCommon" (dict "root" $root "component" .role) | trim | nindent 6 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      containers:
        - name: {{ .role }}
          image: {{ include "crawler.image" (dict "root" $root "role" .role) }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command: [/usr/local/bin/crawlerd]
          args:
            - {{ .role }}
            - --config
            - /etc/crawler/{{ .role }}.yaml
            {{- range .args }}
            - {{ . | quote }}
            {{- end }}
            {{- range $v.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          ports:
            - {name: grpc, containerPort: {{ $root.Values.ports.grpc }}}
            - {name: metrics, containerPort: {{ $root.Values.ports.metrics }}}
            {{- if .adminToken }}
            - {name: admin, containerPort: {{ $root.Values.ports.admin }}}
            {{- end }}
          {{- with $v.extraEnv }}
          env:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- include "crawler.probes" $root | nindent 10 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - {name: data, mountPath: /data}
            - {name: config, mountPath: /etc/crawler, readOnly: true}
            - {name: tmp, mountPath: /tmp}
            {{- if .adminToken }}
            - {name: admin-token, mountPath: /etc/crawler/admin, readOnly: true}
            {{- end }}
            {{- if $root.Values.internalAuth.token.enabled }}
            - {name: internal-token, mountPath: /etc/crawler/internal-token, readOnly: true}
            {{- end }}
            {{- if $root.Values.internalAuth.tls.enabled }}
            - {name: internal-tls, mountPath: /etc/crawler/internal-tls, readOnly: true}
            {{- end }}
            {{- if and (eq .role "fetcher") $root.Values.redis.passwordSecret }}
            - {name: redis-password, mountPath: /etc/crawler/redis, readOnly: true}
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "crawler.fullname" $root }}-config
        {{- /* Scratch space; with fetcher.browser, the browser's profile too. */}}
        - name: tmp
          emptyDir: {sizeLimit: {{ if and (eq .role "fetcher") $root.Values.fetcher.browser.enabled }}{{ $root.Values.fetcher.browser.tmpSize }}{{ else }}64Mi{{ end }}}
        {{- if .adminToken }}
        - name: admin-token
          secret:
            secretName: {{ include "crawler.adminSecretName" $root }}
            defaultMode: 0440
        {{- end }}
        {{- if $root.Values.internalAuth.token.enabled }}
        - name: internal-token
          secret:
            secretName: {{ include "crawler.internalTokenSecretName" $root }}
            defaultMode: 0440
            items: [{key: token, path: token}]
        {{- end }}
        {{- if $root.Values.internalAuth.tls.enabled }}
        # The CA and this role's own certificate and key only.
        - name: internal-tls
          secret:
            secretName: {{ include "crawler.internalTLSSecretName" $root }}
            defaultMode: 0440
            items:
              - {key: ca.crt, path: ca.crt}
              - {key: {{ .role }}.crt, path: {{ .role }}.crt}
              - {key: {{ .role }}.key, path: {{ .role }}.key}
        {{- end }}
        {{- if and (eq .role "fetcher") $root.Values.redis.passwordSecret }}
        - name: redis-password
          secret:
            secretName: {{ $root.Values.redis.passwordSecret }}
            defaultMode: 0440
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  {{- include "crawler.dataClaim" $v.storage | nindent 2 }}
{{- end -}}
