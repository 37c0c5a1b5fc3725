// A stand-in for the Kubernetes API as the external metrics API asks it: the front proxy's trust
// (extension-apiserver-authentication, naming the test CA and its client twc-controller) and the
// SubjectAccessReviews, answered by `allowed` and recorded.
import type { KubernetesApi } from '../../src/runtime/kube/api-client.ts';

export interface ReviewSpec {
  user: string;
}

export function frontProxyApi(
  ca: string,
  allowed: (spec: ReviewSpec) => boolean,
  reviews: unknown[] = [],
): KubernetesApi {
  return {
    get: () =>
      Promise.resolve({
        data: {
          'requestheader-client-ca-file': ca,
          'requestheader-allowed-names': '["twc-controller"]',
          'requestheader-username-headers': '["X-Remote-User"]',
          'requestheader-group-headers': '["X-Remote-Group"]',
          'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
        },
      }),
    create: (_path: string, body: { spec: ReviewSpec }) => {
      reviews.push(body.spec);
      return Promise.resolve({ status: { allowed: allowed(body.spec) } });
    },
  } as unknown as KubernetesApi;
}
