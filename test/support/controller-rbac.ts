// The integration tests' controllers run with the rights the chart gives, nothing more: its
// ServiceAccount and RBAC, rendered by helm from the default values, are installed once in the
// shared cluster, and the controllers authenticate with a token of that ServiceAccount. A right the
// chart forgets fails the test that needs it.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ApiResources } from '../../src/k8s/api-resources.ts';
import type { Environment } from '../../src/localenv/environment.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';

const run = promisify(execFile);
const CHART = path.join(import.meta.dirname, '../../charts/temporal-worker-controller');
const RELEASE = { name: 'twc', namespace: 'twc-system' };

/** Installs the chart's ServiceAccount and RBAC; resolves with a kubeconfig that acts as that ServiceAccount. */
export async function installControllerRbac(environment: Environment): Promise<string> {
  const api = new KubernetesApi({ access: kubeconfigAccess({ file: environment.kubeconfigPath }) });
  try {
    const { stdout } = await run(environment.binaries.helm, [
      'template',
      RELEASE.name,
      CHART,
      '--namespace',
      RELEASE.namespace,
      '--show-only',
      'templates/serviceaccount.yaml',
      '--show-only',
      'templates/rbac.yaml',
    ]);
    await api.create('/api/v1/namespaces', { metadata: { name: RELEASE.namespace } });
    const resources = new ApiResources(api);
    let account = '';
    for (const document of parseAllDocuments(stdout)) {
      const object = document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null;
      if (!object) continue;
      if (object.kind === 'ServiceAccount') account = object.metadata.name;
      await api.create(
        (await resources.resourceOf(object.apiVersion, object.kind)).collection(RELEASE.namespace),
        object,
      );
    }
    const token = await api.create<{ status: { token: string } }>(
      `/api/v1/namespaces/${RELEASE.namespace}/serviceaccounts/${account}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } },
    );
    const kubeconfig = parse(readFileSync(environment.kubeconfigPath, 'utf8')) as {
      users: { user: Record<string, unknown> }[];
    };
    for (const entry of kubeconfig.users) entry.user = { token: token.status.token };
    const file = path.join(environment.dir, 'controller-kubeconfig');
    writeFileSync(file, stringify(kubeconfig), { mode: 0o600 });
    return file;
  } finally {
    api.close();
  }
}
