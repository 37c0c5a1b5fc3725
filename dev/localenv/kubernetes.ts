// The Kubernetes half of the local environment: an embedded etcd, kube-apiserver with a token
// for an admin in system:masters, and kube-controller-manager running the controllers that turn
// Deployments into ReplicaSets and Pods, clean up after them, and act on the PodDisruptionBudgets
// and HorizontalPodAutoscalers owned resources attach to builds. The API server runs the
// aggregation layer, so aggregated APIs (the controller's external metrics) are called for real.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { stringify } from 'yaml';
import { issueAuthority, issueClient } from '../../src/webhook/certificate-issuer.ts';
import type { Binaries } from './binaries.ts';
import { freePort } from './ports.ts';
import { Component } from './process.ts';

export const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  // What owned resources attach to builds: PodDisruptionBudgets and HorizontalPodAutoscalers.
  'disruption-controller',
  'horizontal-pod-autoscaler-controller',
  // What a Service resolves to: the API server calls webhooks through their endpoints.
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  // The cluster's `edit`, `admin` and `view` roles are aggregated: the security tests act as a
  // namespace's `edit` user, our kinds included.
  'clusterrole-aggregation-controller',
];

export interface KubernetesCluster {
  kubeconfigPath: string;
  server: string;
  /** JSON lines, one per request a service account made (Metadata level): what each used of its RBAC. */
  auditLogPath: string;
  components: Component[];
}

const START_TIMEOUT_MS = 90_000;
/** An audience the API server accepts beside its issuer, which no admission rule lists. */
export const EXTRA_API_AUDIENCE = 'https://api.twc.test';
/** The common name of the API server's front-proxy client certificate. */
const FRONT_PROXY_NAME = 'front-proxy-client';

export async function startKubernetes(dir: string, binaries: Binaries): Promise<KubernetesCluster> {
  const components: Component[] = [];
  try {
    const etcdPort = await freePort();
    const etcd = new Component({
      name: 'etcd',
      command: binaries.kube,
      args: [
        'etcd',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-url=http://127.0.0.1:${etcdPort}`,
        `--listen-peer-url=http://127.0.0.1:${await freePort()}`,
      ],
      logFile: path.join(dir, 'etcd.log'),
    });
    components.push(etcd);
    await etcd.waitUntil(
      'ready',
      async () => ((await httpGet(`http://127.0.0.1:${etcdPort}/health`)).includes('"true"') ? true : undefined),
      START_TIMEOUT_MS,
    );

    const apiPort = await freePort();
    const server = `https://127.0.0.1:${apiPort}`;
    const token = randomBytes(24).toString('hex');
    const certDir = path.join(dir, 'apiserver-certs');
    const files = writeApiserverFiles(dir, token);
    const frontProxy = await writeFrontProxyFiles(dir);
    const auditLogPath = path.join(dir, 'audit.log');
    const apiserver = new Component({
      name: 'kube-apiserver',
      command: binaries.kube,
      args: [
        'kube-apiserver',
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        `--secure-port=${apiPort}`,
        // Every address, so that Pods with a network of their own reach it at the `kubernetes`
        // Service's IP (node-agent/pod-network.ts); clients here use 127.0.0.1.
        '--bind-address=0.0.0.0',
        '--advertise-address=127.0.0.1',
        `--cert-dir=${certDir}`,
        `--token-auth-file=${files.tokens}`,
        '--authorization-mode=RBAC',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        // A second audience of its own, as some clusters have (EKS's, GKE's): the security tests
        // name it where admission cannot know it, for the TokenReview to catch.
        `--api-audiences=https://kubernetes.default.svc.cluster.local,${EXTRA_API_AUDIENCE}`,
        `--service-account-key-file=${files.publicKey}`,
        `--service-account-signing-key-file=${files.privateKey}`,
        // Nothing mounts service-account tokens here: there is no kubelet.
        '--disable-admission-plugins=ServiceAccount',
        // As on clusters that check it: an owner reference that blocks its owner's deletion needs
        // the right to update the owner's finalizers.
        '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
        '--allow-privileged=true',
        '--enable-priority-and-fairness=false',
        '--endpoint-reconciler-type=none',
        // No kube-proxy routes a Service's cluster IP here: the API server calls a webhook's
        // Service at one of its endpoints instead.
        '--enable-aggregator-routing=true',
        // The aggregation layer: the API server proxies aggregated APIs (the controller's external
        // metrics) with this client certificate, naming the user in these headers.
        `--requestheader-client-ca-file=${frontProxy.authority}`,
        `--requestheader-allowed-names=${FRONT_PROXY_NAME}`,
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        `--proxy-client-cert-file=${frontProxy.cert}`,
        `--proxy-client-key-file=${frontProxy.key}`,
        `--audit-policy-file=${files.auditPolicy}`,
        `--audit-log-path=${auditLogPath}`,
        '--audit-log-format=json',
        '--audit-log-mode=blocking',
      ],
      logFile: path.join(dir, 'kube-apiserver.log'),
    });
    components.push(apiserver);
    await apiserver.waitUntil(
      'ready',
      async () => ((await httpGet(`${server}/readyz`, token)) === 'ok' ? true : undefined),
      START_TIMEOUT_MS,
    );

    const kubeconfigPath = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfig(server, token, readFileSync(path.join(certDir, 'apiserver.crt'))), {
      mode: 0o600,
    });

    const kcmPort = await freePort();
    const controllerManager = new Component({
      name: 'kube-controller-manager',
      command: binaries.kube,
      args: [
        'kube-controller-manager',
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--leader-elect=false',
        `--controllers=${CONTROLLERS.join(',')}`,
        `--secure-port=${kcmPort}`,
        '--bind-address=127.0.0.1',
        `--cert-dir=${path.join(dir, 'controller-manager-certs')}`,
        // The defaults suit hundreds of nodes; tests want Deployments to settle in seconds.
        '--concurrent-deployment-syncs=10',
        '--concurrent-replicaset-syncs=10',
        '--kube-api-qps=200',
        '--kube-api-burst=400',
        '--horizontal-pod-autoscaler-sync-period=5s',
      ],
      logFile: path.join(dir, 'kube-controller-manager.log'),
    });
    components.push(controllerManager);
    await controllerManager.waitUntil(
      'healthy',
      async () => ((await httpGet(`https://127.0.0.1:${kcmPort}/healthz`)) === 'ok' ? true : undefined),
      START_TIMEOUT_MS,
    );

    return { kubeconfigPath, server, auditLogPath, components };
  } catch (error) {
    await Promise.all(components.map((c) => c.stop()));
    throw error;
  }
}

function writeApiserverFiles(
  dir: string,
  token: string,
): { tokens: string; publicKey: string; privateKey: string; auditPolicy: string } {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const files = {
    tokens: path.join(dir, 'tokens.csv'),
    publicKey: path.join(dir, 'service-account.pub'),
    privateKey: path.join(dir, 'service-account.key'),
    auditPolicy: path.join(dir, 'audit-policy.yaml'),
  };
  writeFileSync(
    files.auditPolicy,
    stringify({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [{ level: 'Metadata', userGroups: ['system:serviceaccounts'] }, { level: 'None' }],
    }),
  );
  writeFileSync(files.tokens, `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
  writeFileSync(files.publicKey, keys.publicKey);
  writeFileSync(files.privateKey, keys.privateKey, { mode: 0o600 });
  return files;
}

/** The front proxy's CA and its client certificate, for as long as an environment may live. */
async function writeFrontProxyFiles(dir: string): Promise<{ authority: string; cert: string; key: string }> {
  const lifetimeMs = 365 * 86_400_000;
  const authority = await issueAuthority(Date.now(), lifetimeMs);
  const client = await issueClient(authority, FRONT_PROXY_NAME, Date.now(), lifetimeMs);
  const files = {
    authority: path.join(dir, 'front-proxy-ca.crt'),
    cert: path.join(dir, 'front-proxy-client.crt'),
    key: path.join(dir, 'front-proxy-client.key'),
  };
  writeFileSync(files.authority, authority.cert);
  writeFileSync(files.cert, client.cert);
  writeFileSync(files.key, client.key, { mode: 0o600 });
  return files;
}

function kubeconfig(server: string, token: string, servingCertificates: Buffer): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'local', cluster: { server, 'certificate-authority-data': servingCertificates.toString('base64') } },
    ],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin' } }],
    'current-context': 'local',
  });
}

/** A GET for readiness probes; the serving certificates are self-signed and not yet known. */
function httpGet(url: string, token?: string): Promise<string> {
  if (url.startsWith('http:')) return fetch(url).then((r) => r.text());
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {}, timeout: 2000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
