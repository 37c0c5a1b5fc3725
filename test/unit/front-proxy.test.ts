// Who an external metrics read comes from: the user the headers name, believed only from a client
// certificate of the request-header CA with an allowed name, as the API server publishes them.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { authenticate, frontProxyTrust, FrontProxyTrustMissingError } from '../../src/external-metrics/front-proxy.ts';
import { makeCertificates } from '../support/certificates.ts';

test('the named user is believed from the front proxy only', async (t) => {
  const certificates = await makeCertificates(t, 'twc.test');
  const data = {
    'requestheader-client-ca-file': certificates.ca,
    'requestheader-allowed-names': '["twc-controller"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  };
  const trust = frontProxyTrust(data);
  const client = new X509Certificate(certificates.client.cert);
  const headers = {
    'x-remote-user': ['system:serviceaccount:kube-system:horizontal-pod-autoscaler'],
    'x-remote-group': ['system:serviceaccounts', 'system:authenticated'],
    'x-remote-extra-authentication.kubernetes.io%2fpod-name': ['kcm-0'],
    'x-forwarded-for': ['10.0.0.1'],
  };
  const now = new Date();
  assert.deepEqual(authenticate(trust, client, headers, now), {
    user: {
      name: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['kcm-0'] },
    },
  });
  const refusal = (...args: Parameters<typeof authenticate>) => {
    const result = authenticate(...args);
    return 'refused' in result ? result.refused : 'believed';
  };
  assert.match(refusal(trust, undefined, headers, now), /no client certificate/);
  assert.match(
    refusal(trust, new X509Certificate(certificates.strangerClient.cert), headers, now),
    /not issued by the request-header CA/,
  );
  assert.match(
    refusal(
      frontProxyTrust({ ...data, 'requestheader-allowed-names': '["front-proxy-client"]' }),
      client,
      headers,
      now,
    ),
    /name twc-controller is not an allowed request-header name/,
  );
  assert.equal(
    refusal(frontProxyTrust({ ...data, 'requestheader-allowed-names': '[]' }), client, headers, now),
    'believed',
    'no names listed: any the CA issued',
  );
  assert.match(refusal(trust, client, { 'x-remote-group': ['g'] }, now), /names no user/);
  assert.match(refusal(trust, client, headers, new Date(now.getTime() + 20 * 365 * 86_400_000)), /not valid now/);
  assert.throws(() => frontProxyTrust({}), FrontProxyTrustMissingError);
});
