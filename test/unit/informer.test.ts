// The informer's list and its cache (src/runtime/informer.ts) against a fake API: it lists in
// pages, watches from the list's resourceVersion, and keeps of every object, listed or watched,
// what its `keep` says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type InformerEvent, LIST_PAGE, SelfHealingInformer } from '../../src/runtime/informer.ts';
import type { KubernetesApi, Query, WatchEvent, WatchStream } from '../../src/runtime/kube/api-client.ts';
import { KubernetesApiError, KubernetesUnreachableError } from '../../src/runtime/kube/api-errors.ts';

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec?: { big: string };
}

const pod = (i: number): Pod => ({
  metadata: { name: `pod-${i}`, namespace: 'shop', resourceVersion: '7' },
  spec: { big: 'x'.repeat(100) },
});

/**
 * An API of `count` Pods, paged as the API server pages them (the offset as continue token), each
 * listed as `listed` makes it; watches stay open until the test fails one.
 */
function fakeApi(count: number, listed: (i: number) => Pod = pod) {
  const lists: Query[] = [];
  const watches: { query: Query; onEvent: (event: WatchEvent) => void; fail: (error: Error) => void }[] = [];
  const api = {
    get: (_path: string, query: Query) => {
      lists.push(query);
      const from = Number(query.continue ?? 0);
      const to = Math.min(count, from + Number(query.limit ?? count));
      return Promise.resolve({
        metadata: { resourceVersion: '7', ...(to < count ? { continue: String(to) } : {}) },
        items: Array.from({ length: to - from }, (_, i) => listed(from + i)),
      });
    },
    watch: (_path: string, query: Query, onEvent: (event: WatchEvent) => void): Promise<WatchStream> => {
      let end = () => {};
      let fail = (_error: Error) => {};
      const ended = new Promise<void>((resolve, reject) => ((end = resolve), (fail = reject)));
      watches.push({ query, onEvent, fail });
      return Promise.resolve({ ended, abort: () => end() });
    },
  };
  return { api: api as unknown as KubernetesApi, lists, watches };
}

/** Lets the informer's loop run up to its next wait. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

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

test('a watch whose connection fails or falls silent goes on from the last resourceVersion, with no list; one the server fails lists again', async () => {
  const { api, lists, watches } = fakeApi(3);
  const informer = new SelfHealingInformer<Pod>({
    api,
    path: '/api/v1/pods',
    onEvent: () => {},
    backoff: { initialMs: 1, maxMs: 1 },
  });
  await informer.start();
  await settle();
  watches[0]?.onEvent({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
  const silence = new Error('the watch received nothing for 120s');
  watches[0]?.fail(new KubernetesUnreachableError('GET', '/api/v1/pods', { cause: silence }));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(lists.length, 1, 'no second list');
  assert.equal(watches[1]?.query.resourceVersion, '9');
  watches[1]?.fail(new KubernetesApiError('GET', '/api/v1/pods', 500, undefined));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(lists.length, 2, 'listed again');
  assert.equal(watches[2]?.query.resourceVersion, '7');
  await informer.stop();
});

test('a relist keeps the cached object of each one unchanged since, and takes anew each one changed', async () => {
  let version = '7';
  const { api, watches } = fakeApi(3, (i) => ({
    ...pod(i),
    metadata: { ...pod(i).metadata, resourceVersion: i === 2 ? version : '7' },
  }));
  const events: string[] = [];
  const informer = new SelfHealingInformer<Pod>({
    api,
    path: '/api/v1/pods',
    onEvent: (event, object) => events.push(`${event} ${object.metadata.name}`),
    backoff: { initialMs: 1, maxMs: 1 },
  });
  await informer.start();
  await settle();
  const before = informer.list();
  version = '8';
  watches[0]?.fail(new KubernetesApiError('GET', '/api/v1/pods', 500, undefined));
  await new Promise((resolve) => setTimeout(resolve, 5));
  const after = informer.list();
  assert.deepEqual(
    after.map((p, i) => p === before[i]),
    [true, true, false],
  );
  assert.equal(after[2]?.metadata.resourceVersion, '8');
  assert.deepEqual(events, ['add pod-0', 'add pod-1', 'add pod-2', 'update pod-2']);
  await informer.stop();
});
