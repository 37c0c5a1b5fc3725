// The leader as the one endpoint of a selector-less Service: what the external metrics
// APIService names, since only the leader reads the backlog figures it serves. A new leader
// writes its address over its predecessor's, so the API server follows leadership. The
// EndpointSlice is owned by its Service, and goes with it (at `helm uninstall`).
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import { httpStatus } from '../runtime/kube/api-errors.ts';

export interface LeaderEndpoint {
  namespace: string;
  /** The Service's name, and its EndpointSlice's. */
  service: string;
  address: string;
  port: number;
}

export async function publishLeaderEndpoint(api: KubernetesApi, endpoint: LeaderEndpoint): Promise<void> {
  const { namespace, service, address, port } = endpoint;
  const path = `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`;
  const owner = await api.get<{ metadata: { uid: string } }>(`/api/v1/namespaces/${namespace}/services/${service}`);
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: service,
      namespace,
      labels: {
        'kubernetes.io/service-name': service,
        // Not the endpointslice controller's: it leaves the slice alone.
        'endpointslice.kubernetes.io/managed-by': 'temporal-worker-controller',
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: service, uid: owner.metadata.uid }],
    },
    addressType: address.includes(':') ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  };
  const current = await api
    .get<{ metadata: { resourceVersion?: string } }>(`${path}/${service}`)
    .catch((error: unknown) => {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    });
  if (current)
    await api.replace(`${path}/${service}`, {
      ...slice,
      metadata: { ...slice.metadata, resourceVersion: current.metadata.resourceVersion },
    });
  else await api.create(path, slice);
}
