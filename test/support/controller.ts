// A controller for one test: scoped to the test's namespace, with a TemporalConnection to the
// shared dev server, and helpers to edit and read the test's worker deployment.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { TestContext } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import { kubeConfig, sharedEnvironment, uniqueName } from './environment.ts';
import { create } from './manifests.ts';

export interface ControlledNamespace {
  /** A sample worker pod template polling the test's own task queue. */
  template(behaviour: string): object;
  /** Creates the TemporalWorkerDeployment `name` with this spec, connection and namespace filled in. */
  createWorkerDeployment(name: string, spec: Record<string, unknown>): Promise<void>;
  patchSpec(name: string, spec: Record<string, unknown>): Promise<void>;
  read(name: string): Promise<TemporalWorkerDeployment>;
}

export async function controlledNamespace(t: TestContext, namespace: string): Promise<ControlledNamespace> {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  // Scoped to the test's namespace: tests run side by side, each with its own controller.
  const controller = new Controller({ kubeconfig: kubeConfig(), identity: uniqueName('twc-test'), namespace, pollIntervalMs: 1000, log: () => {} });
  await controller.start();
  t.after(() => controller.stop());
  await create({ apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalConnection', metadata: { name: 'temporal' }, spec: { hostPort: temporalAddress } }, namespace);
  const taskQueue = uniqueName('q');
  const object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural };
  return {
    template: (behaviour) => ({ spec: { containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: taskQueue }, { name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }] } }),
    createWorkerDeployment: async (name, spec) => {
      await create(
        { apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalWorkerDeployment', metadata: { name }, spec: { workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace }, ...spec } },
        namespace,
      );
    },
    patchSpec: async (name, spec) => {
      await custom.patchNamespacedCustomObject({ ...object, name, body: { spec } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    },
    read: async (name) => (await custom.getNamespacedCustomObject({ ...object, name })) as TemporalWorkerDeployment,
  };
}
