// The digests a Deployment carries of what its Pod template reads: a change of what is read
// changes them, nothing else does, and no value shows.
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  carriedDigests,
  type ConfigurationObject,
  configurationChange,
  readConfiguration,
  withConfigurationDigests,
} from '../../src/k8s/configuration-digests.ts';
import { configurationReferences } from '../../src/k8s/configuration-references.ts';

const template: V1PodTemplateSpec = {
  spec: {
    containers: [
      {
        name: 'worker',
        env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }],
        envFrom: [{ secretRef: { name: 'creds' } }, { configMapRef: { name: 'extra', optional: true } }],
      },
    ],
  },
};

const settings = (data: Record<string, string>): ConfigurationObject => ({ data });
const creds = (data: Record<string, string>, uid = 'uid-1'): ConfigurationObject => ({
  metadata: { uid },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

function read(objects: Record<string, ConfigurationObject | undefined>) {
  return readConfiguration(configurationReferences(template), (kind, name) => objects[`${kind}/${name}`]);
}

const base = {
  'ConfigMap/settings': settings({ mode: 'fast', unread: 'a' }),
  'Secret/creds': creds({ password: 'hunter2' }),
};

test('one digest per object read, the same for the same values', () => {
  const digests = read(base).digests;
  assert.deepEqual(Object.keys(digests).sort(), ['ConfigMap/extra', 'ConfigMap/settings', 'Secret/creds']);
  assert.deepEqual(read(base).digests, digests);
  for (const digest of Object.values(digests)) assert.match(digest, /^[0-9a-f]{16}$/);
});

const changes: [string, Record<string, ConfigurationObject | undefined>, string[]][] = [
  ['a key read changed', { ...base, 'ConfigMap/settings': settings({ mode: 'slow', unread: 'a' }) }, ['settings']],
  ['a key not read changed: nothing', { ...base, 'ConfigMap/settings': settings({ mode: 'fast', unread: 'b' }) }, []],
  [
    'a key of an envFrom Secret added',
    { ...base, 'Secret/creds': creds({ password: 'hunter2', user: 'u' }) },
    ['creds'],
  ],
  ['a Secret made anew (another uid)', { ...base, 'Secret/creds': creds({ password: 'hunter2' }, 'uid-2') }, ['creds']],
  ['an optional ConfigMap appears', { ...base, 'ConfigMap/extra': settings({}) }, ['extra']],
  ['a required ConfigMap deleted', { ...base, 'ConfigMap/settings': undefined }, ['settings']],
  [
    'the key read moved to binaryData',
    { ...base, 'ConfigMap/settings': { binaryData: { mode: 'fast' } } },
    ['settings'],
  ],
];
for (const [title, objects, changed] of changes) {
  test(`${title}: ${changed.length > 0 ? changed.join(', ') : 'no digest'} changes`, () => {
    const before = read(base).digests;
    const after = read(objects).digests;
    assert.deepEqual(
      Object.keys(after).filter((id) => after[id] !== before[id]),
      changed.map((name) => Object.keys(after).find((id) => id.endsWith(`/${name}`))),
    );
  });
}

test('what the Pods cannot start without and does not exist is missing; an optional one is not', () => {
  assert.deepEqual(read(base).missing, []);
  assert.deepEqual(
    read({ 'ConfigMap/settings': settings({ mode: 'fast' }) }).missing.map((m) => [m.kind, m.name, m.field]),
    [['Secret', 'creds', 'container worker envFrom[0]']],
  );
});

test('the annotation carries the digests and no value; a template that reads nothing carries none', () => {
  const digests = read(base).digests;
  const carrying = withConfigurationDigests(template, digests);
  assert.deepEqual(carriedDigests(carrying), digests);
  assert.doesNotMatch(JSON.stringify(carrying.metadata), /hunter2|aHVudGVyMg|fast/);
  assert.equal(carriedDigests(withConfigurationDigests(carrying, {})), undefined, 'taken off');
  assert.equal(carriedDigests(template), undefined);
  const mangled = { metadata: { annotations: { 'temporal.io/configuration-hashes': 'not json' } } };
  assert.deepEqual(carriedDigests(mangled), {}, 'unreadable: a roll writes it again');
});

test('the reason of a roll names the objects that changed', () => {
  const now = { 'ConfigMap/settings': 'b', 'Secret/creds': 'c', 'ConfigMap/new': 'd' };
  assert.equal(configurationChange(now, { ...now }), undefined);
  assert.equal(configurationChange(undefined, {}), undefined, 'made before digests, reading nothing: as it was');
  assert.equal(
    configurationChange({ 'ConfigMap/settings': 'a', 'Secret/creds': 'c', 'ConfigMap/old': 'e' }, now),
    'the configuration its Pods read changed: ConfigMap settings changed; ConfigMap new now read; ConfigMap old no longer read',
  );
  assert.match(
    configurationChange(undefined, now) ?? '',
    /\(ConfigMap new, ConfigMap settings, Secret creds\) has no digest on it yet \(made by an earlier controller\)/,
  );
});
