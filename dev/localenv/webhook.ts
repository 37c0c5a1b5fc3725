// The controller's HTTPS server (the owned-resource webhook, the external metrics API) as the
// local environment serves it, the way a cluster does: a ValidatingWebhookConfiguration or an
// APIService naming a Service, which the API server resolves to its endpoints
// (--enable-aggregator-routing). No kubelet runs the controller here, so the Service has no
// selector: its one endpoint is this machine's address, where the controller listens.
import {
  AdmissionregistrationV1Api,
  ApiregistrationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import { GROUP as METRICS_GROUP, VERSION as METRICS_VERSION } from '../../src/external-metrics/metric-values.ts';
import { networkInterfaces } from 'node:os';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { POD_INTERFACE_PREFIX } from '../node-agent/pod-network.ts';
import { OWNED_RESOURCE_WEBHOOK_PATH } from '../../src/webhook/server.ts';

const SERVICE_PORT = 443;
const PORT_NAME = 'https';

/**
 * An address of this machine the API server and Pods may call: endpoints may not be loopback
 * addresses, so the first IPv4 address of a network interface that is neither loopback nor a
 * Pod network's (node-agent/pod-network.ts).
 */
export function machineAddress(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (name.startsWith(POD_INTERFACE_PREFIX)) continue;
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  throw new Error(
    'this machine has no IPv4 address besides loopback: the API server can only call a webhook Service at another one',
  );
}

export interface WebhookService {
  namespace: string;
  name: string;
}

/** A Service whose one endpoint is `address:port`. */
export async function exposeWebhook(
  kubeconfig: KubeConfig,
  service: WebhookService,
  endpoint: { address: string; port: number },
): Promise<void> {
  const { namespace, name } = service;
  await kubeconfig.makeApiClient(CoreV1Api).createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { ports: [{ name: PORT_NAME, port: SERVICE_PORT, targetPort: endpoint.port, protocol: 'TCP' }] },
    },
  });
  await kubeconfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
    namespace,
    body: {
      metadata: { name, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [endpoint.address], conditions: { ready: true } }],
      ports: [{ name: PORT_NAME, port: endpoint.port, protocol: 'TCP' }],
    },
  });
}

export interface WebhookRegistration {
  name: string;
  service: WebhookService;
  /** Left out when the controller keeps it (self-managed certificates). */
  caBundle?: string;
  /** Only these namespaces' twor go through it (default: all). */
  namespaces?: string[];
}

export async function registerWebhook(kubeconfig: KubeConfig, registration: WebhookRegistration): Promise<void> {
  const { name, service, caBundle, namespaces } = registration;
  await kubeconfig.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: `${KINDS.TemporalWorkerOwnedResource.plural}.${GROUP}`,
          clientConfig: {
            service: { ...service, path: OWNED_RESOURCE_WEBHOOK_PATH, port: SERVICE_PORT },
            ...(caBundle ? { caBundle: Buffer.from(caBundle).toString('base64') } : {}),
          },
          rules: [
            {
              apiGroups: [GROUP],
              apiVersions: [VERSION],
              operations: ['CREATE', 'UPDATE', 'DELETE'],
              resources: [KINDS.TemporalWorkerOwnedResource.plural],
            },
          ],
          ...(namespaces
            ? {
                namespaceSelector: {
                  matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: namespaces }],
                },
              }
            : {}),
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 5,
        },
      ],
    },
  });
}

/** The APIService name of the external metrics API: one per cluster, whoever serves it. */
export const EXTERNAL_METRICS_API_SERVICE = `${METRICS_VERSION}.${METRICS_GROUP}`;

/**
 * Has the API server proxy external.metrics.k8s.io to `service`, made here without a selector or
 * endpoints: the leading controller writes itself in, and its self-managed certificate's CA into
 * the APIService's caBundle.
 */
export async function registerExternalMetrics(kubeconfig: KubeConfig, service: WebhookService): Promise<void> {
  await kubeconfig.makeApiClient(CoreV1Api).createNamespacedService({
    namespace: service.namespace,
    body: {
      metadata: { name: service.name },
      spec: { ports: [{ name: PORT_NAME, port: SERVICE_PORT, protocol: 'TCP' }] },
    },
  });
  await kubeconfig.makeApiClient(ApiregistrationV1Api).createAPIService({
    body: {
      metadata: { name: EXTERNAL_METRICS_API_SERVICE },
      spec: {
        group: METRICS_GROUP,
        version: METRICS_VERSION,
        service: { ...service, port: SERVICE_PORT },
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  });
}
