{{/* The chart's name, at most 63 characters (a DNS label). */}}
{{- define "capture-engine.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's resources are named after it, unless the release is already named after the chart. */}}
{{- define "capture-engine.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "capture-engine.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "capture-engine.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "capture-engine.selectorLabels" -}}
app.kubernetes.io/name: {{ include "capture-engine.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "capture-engine.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "capture-engine.secretName" -}}
{{- default (include "capture-engine.fullname" .) .Values.existingSecret -}}
{{- end -}}

{{- define "capture-engine.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "capture-engine.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
What the service and the workers share in their pod template: the image, the settings from the
ConfigMap and the Secret, /dev/shm for Chromium, the security contexts. Called with a dict of
`root` (the chart's context), `role` (service or worker) and `values` (that role's values).
*/}}
{{- define "capture-engine.podSpec" -}}
{{- $root := .root -}}
serviceAccountName: {{ include "capture-engine.serviceAccountName" $root }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
terminationGracePeriodSeconds: {{ .values.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
containers:
  - name: {{ .role }}
    image: {{ include "capture-engine.image" $root | quote }}
    imagePullPolicy: {{ $root.Values.image.pullPolicy }}
    args: [{{ if eq .role "worker" }}"worker"{{ else }}"serve"{{ end }}]
    securityContext:
      {{- toYaml $root.Values.securityContext | nindent 6 }}
    env:
      - name: CAPTURE_CONCURRENCY
        value: {{ .values.concurrency | quote }}
      - name: POD_NAME
        valueFrom:
          fieldRef:
            fieldPath: metadata.name
      # Which pod ran which part of a trace.
      - name: OTEL_RESOURCE_ATTRIBUTES
        value: {{ printf "k8s.pod.name=$(POD_NAME),k8s.namespace.name=%s" $root.Release.Namespace | quote }}
    envFrom:
      - configMapRef:
          name: {{ include "capture-engine.fullname" $root }}
      - secretRef:
          name: {{ include "capture-engine.secretName" $root }}
          optional: true
    resources:
      {{- toYaml .values.resources | nindent 6 }}
    volumeMounts:
      - name: shm
        mountPath: /dev/shm
      - name: files
        mountPath: /var/lib/capture-engine
      - name: tmp
        mountPath: /tmp
{{- if eq .role "service" }}
    ports:
      - name: http
        containerPort: {{ $root.Values.service.port }}
      {{- if $root.Values.metrics.enabled }}
      - name: metrics
        containerPort: {{ $root.Values.metrics.port }}
      {{- end }}
    # Ready once Chromium is connected and Redis and the storage answer; 503 under pressure, so
    # the load balancer sends captures elsewhere without restarting anything.
    readinessProbe:
      httpGet:
        path: /readyz
        port: http
      periodSeconds: 5
      failureThreshold: 2
    livenessProbe:
      httpGet:
        path: /healthz
        port: http
      periodSeconds: 10
      failureThreshold: 6
    startupProbe:
      httpGet:
        path: /healthz
        port: http
      periodSeconds: 2
      failureThreshold: 60
{{- end }}
volumes:
  - name: shm
    emptyDir:
      medium: Memory
      sizeLimit: {{ $root.Values.shm.sizeLimit }}
  - name: files
    emptyDir: {}
  - name: tmp
    emptyDir: {}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
