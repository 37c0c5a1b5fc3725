import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { withFieldReference } from '../../src/api/field-reference.ts';
import { CRD_DIR, crdFiles, REFERENCE } from '../../scripts/generate.ts';

test("the CRD chart's definitions are what `npm run generate` writes from the schemas", () => {
  const generated = crdFiles();
  assert.deepEqual(
    readdirSync(CRD_DIR).sort(),
    [...generated.keys()].map((f) => path.basename(f)).sort(),
    'the same files',
  );
  for (const [file, content] of generated) {
    assert.equal(readFileSync(file, 'utf8'), content, `${path.basename(file)} is stale: run \`npm run generate\``);
  }
});

test("docs/reference.md's field reference is what `npm run generate` writes from the schemas", () => {
  const reference = readFileSync(REFERENCE, 'utf8');
  assert.equal(reference, withFieldReference(reference), 'the field reference is stale: run `npm run generate`');
});
