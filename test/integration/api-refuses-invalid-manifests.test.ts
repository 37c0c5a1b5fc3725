// Every manifest of the table is refused by the real API server (schema and CEL), with a message
// that names the offending field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invalidManifests } from '../support/invalid-manifests.ts';
import { testNamespace } from '../support/environment.ts';
import { create, replace, type Manifest } from '../support/manifests.ts';

test('admission refuses each invalid manifest and names the field', async (t) => {
  const namespace = await testNamespace(t, 'invalid');
  assert.ok(invalidManifests.length >= 40, `at least 40 cases (${invalidManifests.length})`);
  await Promise.all(
    invalidManifests.map((c, i) =>
      t.test(`${c.kind}: ${c.title}`, async () => {
        // One namespace holds every case, so each gets a name of its own, except those about names.
        const name = c.expect === 'metadata.name' ? (c.manifest.metadata as { name: string }).name : `case-${i}`;
        const manifest = { ...c.manifest, metadata: { name } } as Manifest;
        const attempt = c.before
          ? create({ ...c.before, metadata: { ...(c.before.metadata as object), name } }, namespace).then((stored) =>
              replace(manifest, stored, namespace),
            )
          : create(manifest, namespace);
        const error = await attempt.then(
          () => assert.fail(`admitted: ${JSON.stringify(manifest.spec)}`),
          (e: unknown) => e as { code?: number; body?: unknown },
        );
        // 422 from validation; 400 from strict decoding of an unknown field.
        assert.ok(
          error.code === 422 || error.code === 400,
          `refused as invalid, not ${String(error.code)}: ${String(error.body)}`,
        );
        const message = (
          typeof error.body === 'string'
            ? (JSON.parse(error.body) as { message: string })
            : (error.body as { message: string })
        ).message;
        assert.ok(message.includes(c.expect), `the message names ${c.expect}: ${message}`);
        if (c.says) assert.ok(message.includes(c.says), `the message says ${c.says}: ${message}`);
      }),
    ),
  );
});
