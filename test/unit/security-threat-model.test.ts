// docs/security.md names, for each threat, the test that proves its control: each file it names
// exists, and each test it quotes is in that file (a quote cut short with … matches by the parts
// it keeps; one after "Open:" is a test still to write). A renamed or removed test fails here,
// not in a reader's search.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(import.meta.dirname, '../..');
const model = readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');

/** Per threat row: its number and its last cell, the tests. */
const rows = [...model.matchAll(/^\| (T\d+) \|.*\| ([^|]*) \|$/gm)].map(([, threat = '', tests = '']) => ({
  threat,
  tests,
}));

/** Each file the cell names, with the parts of each test name quoted after it (up to the next file, or "Open:"). */
function namedTests(cell: string): { file: string; names: string[][] }[] {
  return [...cell.matchAll(/`(test\/[^`]+\.ts)`((?:[^`]|`(?!test\/)[^`]*`)*)/g)].map(([, file = '', after = '']) => ({
    file,
    names: [...(after.split('Open:')[0] ?? '').matchAll(/"([^"]+)"/g)].map(([, name = '']) =>
      name
        .split(/…|\.\.\./)
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  }));
}

test('docs/security.md has its threats in order, each naming a test, or saying why not', () => {
  assert.deepEqual(
    rows.map((r) => r.threat),
    rows.map((_, i) => `T${i + 1}`),
  );
  assert.ok(rows.length >= 13);
  for (const { threat, tests } of rows)
    assert.ok(namedTests(tests).length > 0 || /\bno test\b|\bopen\b/i.test(tests), `${threat} names no test`);
});

test('every test file docs/security.md names exists, and every test it quotes is in that file', () => {
  const missing = rows.flatMap(({ threat, tests }) =>
    namedTests(tests).flatMap(({ file, names }) => {
      if (!existsSync(path.join(ROOT, file))) return [`${threat}: ${file} does not exist`];
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      return names
        .filter((parts) => !parts.every((part) => source.includes(part)))
        .map((parts) => `${threat}: ${file} has no "${parts.join('…')}"`);
    }),
  );
  assert.deepEqual(missing, []);
});
