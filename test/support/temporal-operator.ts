// Someone other than the controller acting on a Temporal Worker Deployment, through the same
// RPCs a person uses with the `temporal` CLI: claiming or releasing the manager identity and
// changing routing by hand.
import type { Client, Connection } from '@temporalio/client';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { TemporalChannel } from '../../src/temporal/channel.ts';
import { troubleOf } from '../../src/temporal/call-failures.ts';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';

export interface TemporalOperator {
  identity: string;
  /** Makes this operator the deployment's manager: the controller must then leave routing alone. */
  claimManager(): Promise<void>;
  /** Unsets the manager identity, as `temporal worker deployment manager-identity unset` does. */
  releaseManager(): Promise<void>;
  /** Sets the current build; '' routes new workflows to unversioned workers. */
  setCurrent(buildId: string): Promise<void>;
  /**
   * As the controller reads it, through its own channel. Temporal's Worker Deployment answers not
   * found for a moment after each change it makes: an answer that it does not exist is taken once
   * it has stood 3 s. Its workflow, busy with the controller's queries, may refuse one
   * (`TemporalBusy`): read again, for as long.
   */
  describe(): Promise<TemporalDeploymentState>;
}

const NOT_FOUND_STANDS_MS = 3000;

export function temporalOperator(
  client: Client,
  deploymentName: string,
  identity = 'some-other-cli-user',
): TemporalOperator {
  const service = client.workflowService;
  const namespace = client.options.namespace;
  return {
    identity,
    claimManager: async () =>
      void (await service.setWorkerDeploymentManager({ namespace, deploymentName, self: true, identity })),
    releaseManager: async () =>
      void (await service.setWorkerDeploymentManager({ namespace, deploymentName, managerIdentity: '', identity })),
    setCurrent: async (buildId) =>
      void (await service.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity })),
    describe: async () => {
      const channel = new TemporalChannel({ address: (client.connection as Connection).options.address });
      try {
        const deadline = Date.now() + NOT_FOUND_STANDS_MS;
        for (;;) {
          const state = await describeDeployment(channel.service, namespace, deploymentName).catch((error: unknown) => {
            if (troubleOf(error) === 'TemporalBusy' && Date.now() < deadline) return undefined;
            throw error;
          });
          if (state && (state.exists || Date.now() >= deadline)) return state;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      } finally {
        channel.close();
      }
    },
  };
}
