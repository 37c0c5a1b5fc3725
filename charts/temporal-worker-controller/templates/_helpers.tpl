{{/* The release's full name, cut to 63 characters (a DNS label). */}}
{{- define "twc.fullname" -}}
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

{{- define "twc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "twc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "twc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "twc.labels" -}}
{{ include "twc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "twc.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "twc.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name: the service account to run as, as serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "twc.webhookService" -}}
{{- printf "%s-webhook" (include "twc.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The external metrics API, served where the webhook is, by the leader: on when all three are. */}}
{{- define "twc.externalMetrics" -}}
{{- if and .Values.externalMetrics.enabled .Values.webhook.enabled .Values.controller.backlogMetrics -}}
true
{{- end -}}
{{- end -}}

{{- define "twc.externalMetricsService" -}}
{{- printf "%s-external-metrics" (include "twc.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Secret of the webhook's certificate: the controller's own, cert-manager's, or the user's. */}}
{{- define "twc.webhookSecret" -}}
{{- if eq .Values.webhook.certificates "secret" -}}
{{- required "webhook.secret.name: the kubernetes.io/tls Secret to serve, as webhook.certificates is secret" .Values.webhook.secret.name -}}
{{- else -}}
{{- printf "%s-webhook-tls" (include "twc.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "twc.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Where cert-manager's or the user's certificate is mounted. */}}
{{- define "twc.certDir" -}}
/var/run/temporal-worker-controller/webhook-certs
{{- end -}}

{{/* What the controller does in each namespace it watches. */}}
{{- define "twc.watchRules" -}}
# Read through watches only, never one by one.
- apiGroups: [temporal.io]
  resources: [temporalworkerdeployments, temporalconnections, temporalworkerownedresources]
  verbs: [list, watch, patch]
- apiGroups: [temporal.io]
  resources: [temporalworkerdeployments/status, temporalconnections/status, temporalworkerownedresources/status]
  verbs: [update]
# Never requested: where the API server checks owner references, adopting a
# TemporalWorkerOwnedResource (setting its owner) needs the right to delete it.
- apiGroups: [temporal.io]
  resources: [temporalworkerownedresources]
  verbs: [delete]
# Owner references that block their owner's deletion, where the API server checks them.
- apiGroups: [temporal.io]
  resources: [temporalworkerdeployments/finalizers]
  verbs: [update]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [list, watch, create, update, delete]
- apiGroups: [apps]
  resources: [deployments/scale]
  verbs: [patch]
- apiGroups: [apps]
  resources: [deployments/finalizers]
  verbs: [update]
- apiGroups: ['']
  resources: [pods]
  verbs: [list, watch]
- apiGroups: ['']
  resources: [events]
  verbs: [create, patch{{ if .Values.dashboard.enabled }}, list, watch{{ end }}]
# Connection credentials, gate inputs, notification receivers and what worker Pod templates
# read, each read by name (a watch per Secret or ConfigMap named, by field selector: names are
# the users', so no resourceNames can list them); with every namespace
# watched, the copies of a TemporalClusterConnection's Secrets that its Pods mount, in a worker
# deployment's namespace its allowedNamespaces select: applied server-side, and deleted (by uid,
# only those it owns) from a namespace that may no longer use the connection.
- apiGroups: ['']
  resources: [secrets]
  verbs: [get, list, watch{{ if not .Values.rbac.watchNamespaces }}, create, patch, delete{{ end }}]
- apiGroups: ['']
  resources: [configmaps]
  verbs: [get, list, watch]
# Owned resources' copies are written as a ServiceAccount of their own namespace, never with the
# controller's rights (it has none on any owned kind). No resourceNames: the namespaces name their
# accounts; the controller only ever impersonates one of the namespace whose copies it writes.
- apiGroups: ['']
  resources: [serviceaccounts]
  verbs: [impersonate]
{{- end }}

{{/*
The V8 heap limit, in MiB, for the container's memory limit: half of it (resources.limits.memory
in Mi or Gi; none otherwise). Node sizes its heap from the limit itself, but at more than the
limit (259 MiB in a 192 MiB cgroup), so V8 would not collect harder before the OOM killer ends
the container; the other half is Node's own memory (its binary, TLS, buffers: about 75 MiB).
*/}}
{{- define "twc.heapLimitMiB" -}}
{{- $limit := toString (dig "limits" "memory" "" (.Values.resources | default dict)) -}}
{{- if regexMatch "^[0-9]+Mi$" $limit -}}
{{- div (trimSuffix "Mi" $limit | atoi) 2 -}}
{{- else if regexMatch "^[0-9]+Gi$" $limit -}}
{{- div (mul (trimSuffix "Gi" $limit | atoi) 1024) 2 -}}
{{- end -}}
{{- end }}
