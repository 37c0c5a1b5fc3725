// What npm start's environment derives from examples/: the Temporal namespaces and the nodes their
// worker deployments need.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  EXAMPLES_DIR,
  exampleConnectionAddress,
  exampleNodes,
  exampleTemporalNamespaces,
} from '../../dev/localenv/examples.ts';

function examples(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-examples-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const dir = examples({
  'a.yaml': `kind: TemporalConnection
metadata: { name: other }
spec: { hostPort: x:7233 }
---
kind: TemporalConnection
metadata: { name: temporal }
spec: { hostPort: temporal.example.svc:7233 }
---
kind: TemporalWorkerDeployment
spec:
  workerOptions: { temporalNamespace: ingest }
  template: { spec: { nodeSelector: { zone: A, disk: ssd } } }
  pools:
    - { name: spot, nodeSelector: { node-pool: spot } }
    - { name: plain }
`,
  'b.yaml': `kind: TemporalWorkerDeployment
spec:
  workerOptions: { temporalNamespace: default }
  pools: [{ name: again, nodeSelector: { node-pool: spot } }]
`,
  'notes.txt': 'kind: TemporalWorkerDeployment',
});

test('one node per distinct nodeSelector of the worker deployments, labelled to match it', () => {
  assert.deepEqual(exampleNodes(dir), [
    { name: 'disk-ssd-zone-a', labels: { zone: 'A', disk: 'ssd' }, taints: [] },
    { name: 'node-pool-spot', labels: { 'node-pool': 'spot' }, taints: [] },
  ]);
});

test("the worker deployments' Temporal namespaces, once each, sorted", () => {
  assert.deepEqual(exampleTemporalNamespaces(dir), ['default', 'ingest']);
});

test("the address of the examples' connection named temporal", () => {
  assert.equal(exampleConnectionAddress(dir), 'temporal.example.svc:7233');
  assert.equal(exampleConnectionAddress(examples({ 'b.yaml': 'kind: TemporalConnection' })), undefined);
});

test('the shipped examples: a node for each pool of pools.yaml, the in-cluster address of minimal.yaml', () => {
  assert.equal(exampleConnectionAddress(), 'temporal-frontend.temporal.svc:7233');
  assert.deepEqual(
    exampleNodes().map((n) => n.name),
    ['node-pool-on-demand', 'node-pool-spot'],
  );
});

test('the shipped examples give one name to one object: npm start applies them all into one namespace', () => {
  // Two worker deployments of one name: the second patches the first while it is being deleted and
  // vanishes with it (referenced-configuration.yaml's once took rollout-progressive.yaml's). The
  // same object in two files, as a Secret two connections share, is harmless.
  const seen = new Map<string, { file: string; object: unknown }>();
  for (const file of readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.yaml'))) {
    for (const document of parseAllDocuments(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'))) {
      const object = document.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } } | null;
      if (!object?.kind || !object.metadata?.name) continue;
      // npm start applies into the default namespace; one that names it is the same object.
      if (object.metadata.namespace === 'default') delete object.metadata.namespace;
      const key = `${object.kind}/${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
      const before = seen.get(key);
      if (before) assert.deepEqual(object, before.object, `${key} of ${file} differs from the one in ${before.file}`);
      seen.set(key, { file, object });
    }
  }
  assert.ok(seen.size > 10, `the examples were read (${seen.size} objects)`);
});
