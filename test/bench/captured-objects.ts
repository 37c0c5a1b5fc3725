// The objects the controller lists of one worker deployment, as the API server sent them in a real
// run (test/support/captured-objects.json): what test/bench/cache-memory.bench.ts copies a
// thousand times and test/unit/cached-objects.test.ts reads. `node test/bench/memory.bench.ts
// --capture` makes them again.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../../dev/localenv/environment.ts';

export const CAPTURED_OBJECTS = path.join(import.meta.dirname, '../support/captured-objects.json');
/** The namespace of the captured objects. */
export const NAMESPACE = 'bench-memory';
/** The captured worker deployment's name, which each copy replaces with its own. */
export const CAPTURED = 'twdcap';
/** What the controller lists, by the kinds of the watch table (controller/watches.ts). */
export const KINDS = ['TemporalWorkerDeployment', 'TemporalConnection', 'Deployment', 'Pod'] as const;
export type Kind = (typeof KINDS)[number];
export type CapturedObjects = Record<Kind, unknown[]>;

/** Lists, whole (managedFields and all), what the controller lists in NAMESPACE, and writes it. */
export async function captureObjects(environment: Environment): Promise<string> {
  const { WATCHES } = await import('../../src/controller/watches.ts');
  const { KubernetesApi } = await import('../../src/runtime/kube/api-client.ts');
  const { kubeconfigAccess } = await import('../../src/runtime/kube/cluster-access.ts');
  const prettier = await import('prettier');
  const api = new KubernetesApi({ access: kubeconfigAccess({ file: environment.kubeconfigPath }) });
  try {
    const list = async (row: { path: (scope: string) => string; labelSelector?: string }) =>
      (
        await api.get<{ items: unknown[] }>(
          row.path(`/namespaces/${NAMESPACE}`),
          row.labelSelector ? { labelSelector: row.labelSelector } : {},
        )
      ).items;
    const objects: CapturedObjects = {
      TemporalWorkerDeployment: await list(WATCHES.TemporalWorkerDeployment),
      TemporalConnection: await list(WATCHES.TemporalConnection),
      Deployment: await list(WATCHES.Deployment),
      Pod: await list(WATCHES.Pod),
    };
    const options = { ...(await prettier.resolveConfig(CAPTURED_OBJECTS)), filepath: CAPTURED_OBJECTS };
    writeFileSync(CAPTURED_OBJECTS, await prettier.format(JSON.stringify(objects, null, 2), options));
    return KINDS.map((kind) => `${objects[kind].length} ${kind}`).join(', ');
  } finally {
    api.close();
  }
}
