// The owned-resource webhook as the local environment serves it: a certificate for 127.0.0.1 made
// with openssl, and a ValidatingWebhookConfiguration that has the real API server call the
// controller at a URL (a cluster would name the controller's Service instead).
import { AdmissionregistrationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import { OWNED_RESOURCE_WEBHOOK_PATH } from '../webhook/server.ts';
import { authority, serverLeaf } from './certificates.ts';

export const WEBHOOK_HOST = '127.0.0.1';

/** Writes tls.crt and tls.key for WEBHOOK_HOST into `dir`; resolves with the CA's PEM. */
export async function makeWebhookCertificate(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const ca = await authority(dir, 'webhook-ca');
  const pair = await serverLeaf(dir, ca, 'webhook', WEBHOOK_HOST);
  await writeFile(path.join(dir, 'tls.crt'), pair.cert);
  await writeFile(path.join(dir, 'tls.key'), pair.key);
  return readFile(`${ca}.crt`, 'utf8');
}

export interface WebhookRegistration {
  name: string;
  port: number;
  ca: string;
  /** Only these namespaces' twor go through it (default: all). */
  namespaces?: string[];
}

export async function registerWebhook(kubeconfig: KubeConfig, registration: WebhookRegistration): Promise<void> {
  const { name, port, ca, namespaces } = registration;
  await kubeconfig.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: `${KINDS.TemporalWorkerOwnedResource.plural}.${GROUP}`,
          clientConfig: {
            url: `https://${WEBHOOK_HOST}:${port}${OWNED_RESOURCE_WEBHOOK_PATH}`,
            caBundle: Buffer.from(ca).toString('base64'),
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
