// The informer's list and its cache (src/runtime/informer.ts) against a fake API: it lists in
// pages, watches from the list's resourceVersion, and keeps of every object, listed or watched,
// what its `keep` says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type InformerEvent, LIST_PAGE, SelfHealingInformer } from '../../src/runtime/informer.ts';
import type { KubernetesApi, Query, WatchEvent, WatchStream } from '../../src/runtime/kube/api-client.ts';

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec?: { big: string };
}

const pod = (i: number): Pod => ({
  metadata: { name: `pod-${i}`, namespace: 'shop', resourceVersion: '7' },
  spec: { big: 'x'.repeat(100) },
});

/** An API of `count` Pods, paged as the API server pages them (the offset as continue token); watches stay open. */
function fakeApi(count: number) {
  const lists: Query[] = [];
  const watches: { query: Query; onEvent: (event: WatchEvent) => void }[] = [];
  const api = {
    get: (_path: string, query: Query) => {
      lists.push(query);
      const from = Number(query.continue ?? 0);
      const to = Math.min(count, from + Number(query.limit ?? count));
      return Promise.resolve({
        metadata: { resourceVersion: '7', ...(to < count ? { continue: String(to) } : {}) },
        items: Array.from({ length: to - from }, (_, i) => pod(from + i)),
      });
    },
    watch: (_path: string, query: Query, onEvent: (event: WatchEvent) => void): Promise<WatchStream> => {
      watches.push({ query, onEvent });
      let end = () => {};
      return Promise.resolve({ ended: new Promise<void>((resolve) => (end = resolve)), abort: () => end() });
    },
  };
  return { api: api as unknown as KubernetesApi, lists, watches };
}

test('a list comes in pages of LIST_PAGE, each after the last one’s continue token; the watch starts from its resourceVersion', async () => {
  const count = 2 * LIST_PAGE + 3;
  const { api, lists, watches } = fakeApi(count);
  const informer = new SelfHealingInformer<Pod>({ api, path: '/api/v1/pods', labelSelector: 'app', onEvent: () => {} });
  await informer.start();
  assert.deepEqual(lists, [
    { labelSelector: 'app', fieldSelector: undefined, limit: LIST_PAGE, continue: undefined },
    { labelSelector: 'app', fieldSelector: undefined, limit: LIST_PAGE, continue: String(LIST_PAGE) },
    { labelSelector: 'app', fieldSelector: undefined, limit: LIST_PAGE, continue: String(2 * LIST_PAGE) },
  ]);
  assert.equal(informer.list().length, count);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(watches[0]?.query.resourceVersion, '7');
  await informer.stop();
});

test('the cache and the events hold what `keep` keeps of each object, listed or watched', async () => {
  const { api, watches } = fakeApi(3);
  const events: [InformerEvent, Pod][] = [];
  const informer = new SelfHealingInformer<Pod>({
    api,
    path: '/api/v1/pods',
    keep: ({ metadata }) => ({ metadata }),
    onEvent: (event, object) => events.push([event, object]),
  });
  await informer.start();
  await new Promise((resolve) => setImmediate(resolve));
  const changed = { ...pod(1), metadata: { ...pod(1).metadata, resourceVersion: '8' } };
  watches[0]?.onEvent({ type: 'MODIFIED', object: changed });
  watches[0]?.onEvent({ type: 'ADDED', object: pod(3) });
  watches[0]?.onEvent({ type: 'DELETED', object: pod(0) });
  assert.deepEqual(
    informer.list().map((p) => p.metadata.name),
    ['pod-1', 'pod-2', 'pod-3'],
  );
  for (const cached of informer.list()) assert.equal(cached.spec, undefined);
  for (const [, object] of events) assert.equal(object.spec, undefined);
  assert.deepEqual(
    events.map(([event, object]) => `${event} ${object.metadata.name}`),
    ['add pod-0', 'add pod-1', 'add pod-2', 'update pod-1', 'add pod-3', 'delete pod-0'],
  );
  assert.equal(informer.get('shop', 'pod-1')?.metadata.resourceVersion, '8');
  await informer.stop();
});
