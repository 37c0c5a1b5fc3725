import assert from 'node:assert/strict';
import { test } from 'node:test';
import proto from '@temporalio/proto';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { describeDeployment, TemporalNamespaceNotFoundError } from '../../src/temporal/deployment-state.ts';
import { NamespacesFound } from '../../src/temporal/namespaces-found.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { FakeTimers } from '../support/fake-timers.ts';

/** A NOT_FOUND answer, with Temporal's failure of that type in its details when one is given. */
function notFound(method: string, what: string, failure?: string): Promise<never> {
  const statusDetails = failure
    ? Buffer.from(
        proto.google.rpc.Status.encode({
          code: GrpcStatus.NOT_FOUND,
          details: [
            { type_url: `type.googleapis.com/temporal.api.errordetails.v1.${failure}`, value: Buffer.alloc(0) },
          ],
        }).finish(),
      )
    : undefined;
  const status = {
    code: GrpcStatus.NOT_FOUND,
    details: `${what} not found`,
    ...(statusDetails ? { statusDetails } : {}),
  };
  return Promise.reject(new TemporalCallError(method, status));
}

/**
 * A server that lists no Worker Deployment and has the namespaces `existing`; every call recorded.
 * With `typed`, its answers say what is missing, as Temporal's do.
 */
function server(existing: string[], typed = false) {
  const sent: string[] = [];
  const service = {
    describeWorkerDeployment: ({ namespace, deploymentName }: { namespace: string; deploymentName: string }) => {
      sent.push(`DescribeWorkerDeployment ${namespace}/${deploymentName}`);
      const failure = !typed
        ? undefined
        : existing.includes(namespace)
          ? 'NotFoundFailure'
          : 'NamespaceNotFoundFailure';
      return notFound('DescribeWorkerDeployment', deploymentName, failure);
    },
    describeNamespace: ({ namespace }: { namespace: string }) => {
      sent.push(`DescribeNamespace ${namespace}`);
      return existing.includes(namespace)
        ? Promise.resolve({ namespaceInfo: { name: namespace } })
        : notFound('DescribeNamespace', namespace);
    },
  } as unknown as WorkflowService;
  return { service, sent };
}

test('Worker Deployments no worker has polled yet, in a namespace found lately: the namespace is described once', async () => {
  const timers = new FakeTimers();
  const found = new NamespacesFound(10_000, timers);
  const { service, sent } = server(['default']);
  const at = (address: string) => found.remembering(service, address);
  for (const name of ['a', 'b'])
    assert.deepEqual(await describeDeployment(at('temporal:7233'), 'default', name), { exists: false, versions: [] });
  await timers.advance(9_999);
  await describeDeployment(at('temporal:7233'), 'default', 'c');
  await describeDeployment(at('elsewhere:7233'), 'default', 'a');
  await timers.advance(1);
  await describeDeployment(at('temporal:7233'), 'default', 'd');
  assert.deepEqual(sent, [
    'DescribeWorkerDeployment default/a',
    'DescribeNamespace default',
    'DescribeWorkerDeployment default/b',
    'DescribeWorkerDeployment default/c',
    'DescribeWorkerDeployment default/a',
    'DescribeNamespace default',
    'DescribeWorkerDeployment default/d',
    'DescribeNamespace default',
  ]);
});

test('a namespace missing is asked about each time: once created, it is found at the next read', async () => {
  const found = new NamespacesFound(10_000, new FakeTimers());
  const existing: string[] = [];
  const { service, sent } = server(existing);
  const remembering = found.remembering(service, 'temporal:7233');
  for (let i = 0; i < 2; i++)
    await assert.rejects(describeDeployment(remembering, 'orders', 'a'), TemporalNamespaceNotFoundError);
  existing.push('orders');
  assert.equal((await describeDeployment(remembering, 'orders', 'a')).exists, false);
  assert.equal(sent.filter((s) => s === 'DescribeNamespace orders').length, 3);
});

test('reads that find no Worker Deployment at the same moment share one description of the namespace, found or missing', async () => {
  const found = new NamespacesFound(10_000, new FakeTimers());
  const { service, sent } = server(['default']);
  const remembering = found.remembering(service, 'temporal:7233');
  const states = await Promise.all(['a', 'b', 'c'].map((name) => describeDeployment(remembering, 'default', name)));
  assert.deepEqual(states, Array(3).fill({ exists: false, versions: [] }));
  const missing = await Promise.allSettled(['a', 'b'].map((name) => describeDeployment(remembering, 'orders', name)));
  assert.ok(missing.every((m) => m.status === 'rejected' && m.reason instanceof TemporalNamespaceNotFoundError));
  assert.deepEqual(sent, [
    'DescribeWorkerDeployment default/a',
    'DescribeWorkerDeployment default/b',
    'DescribeWorkerDeployment default/c',
    'DescribeNamespace default',
    'DescribeWorkerDeployment orders/a',
    'DescribeWorkerDeployment orders/b',
    'DescribeNamespace orders',
  ]);
});

test('a NOT_FOUND that says what is missing, as Temporal says it, is believed: no namespace described', async () => {
  const { service, sent } = server(['default'], true);
  assert.deepEqual(await describeDeployment(service, 'default', 'a'), { exists: false, versions: [] });
  await assert.rejects(describeDeployment(service, 'orders', 'a'), TemporalNamespaceNotFoundError);
  assert.deepEqual(sent, ['DescribeWorkerDeployment default/a', 'DescribeWorkerDeployment orders/a']);
});
