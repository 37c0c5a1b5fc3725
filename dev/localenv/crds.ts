// Installs CustomResourceDefinitions from a folder of YAML files, as the tests and `npm start`
// need them, and waits until the API server serves each one.
import {
  ApiextensionsV1Api,
  type KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const FIELD_MANAGER = 'twc-localenv';

export function readCrds(folder: string): V1CustomResourceDefinition[] {
  return (
    readdirSync(folder)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      // client-node's typed models, not plain YAML: its serializer drops every field whose JSON
      // name differs from the model's (enum, default, x-kubernetes-validations) on plain objects.
      .flatMap(
        (file) => loadAllYaml(readFileSync(path.join(folder, file), 'utf8')) as (V1CustomResourceDefinition | null)[],
      )
      .filter((crd): crd is V1CustomResourceDefinition => crd?.kind === 'CustomResourceDefinition')
  );
}

export async function installCrds(kubeconfig: KubeConfig, folder: string, timeoutMs = 30_000): Promise<string[]> {
  const crds = readCrds(folder);
  const objects = KubernetesObjectApi.makeApiClient(kubeconfig);
  const extensions = kubeconfig.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    await objects.patch(crd, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }
  const names = crds.map((crd) => crd.metadata?.name ?? '');
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const crd = await extensions.readCustomResourceDefinition({ name });
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      if (established?.status === 'True') break;
      if (Date.now() > deadline) {
        throw new Error(
          `CustomResourceDefinition ${name} not Established after ${timeoutMs / 1000}s: ${established?.message ?? 'no condition yet'}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return names;
}
