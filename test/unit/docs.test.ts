// The docs a newcomer walks (README.md and docs/*.md) hold together: every relative link reaches a
// file and, with #anchor, a heading of it; every YAML block parses and, unless marked
// <!-- fragment -->, is whole objects (test/integration/docs-manifests.test.ts has the API server
// admit them); every shell block is marked <!-- needs a cluster --> or <!-- run by FILE, ... -->,
// and each command of it is in a file it names. docs/README.md says the same to writers.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  DOC_FILES,
  FRAGMENT,
  manifestsOf,
  NEEDS_A_CLUSTER,
  normalised,
  readDoc,
  ROOT,
  runBy,
  SHELLS,
  slug,
  commandsOf,
  type Block,
} from '../support/docs.ts';

const docs = DOC_FILES.map(readDoc);
const blocks = docs.flatMap((d) => d.blocks);
const at = (b: { file: string; line: number }) => `${b.file}:${b.line}`;

test('every relative link reaches a file of the repository, and its #anchor a heading there', () => {
  const broken: string[] = [];
  for (const doc of docs) {
    for (const link of doc.links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue;
      const [file = '', anchor] = link.target.split('#');
      const target = file ? path.normalize(path.join(path.dirname(doc.file), decodeURIComponent(file))) : doc.file;
      if (target.startsWith('..') || !existsSync(path.join(ROOT, target))) {
        broken.push(`${at(link)}: ${link.target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      const anchors =
        target.endsWith('.md') && statSync(path.join(ROOT, target)).isFile() ? readDoc(target).anchors : undefined;
      if (!anchors?.has(anchor)) broken.push(`${at(link)}: ${link.target}: no heading with that anchor`);
    }
  }
  assert.deepEqual(broken, []);
});

test("every page of docs/ is on the README's map", () => {
  const readme = docs.find((d) => d.file === 'README.md');
  const linked = new Set(readme?.links.map((l) => l.target.split('#')[0]));
  assert.deepEqual(
    DOC_FILES.filter((f) => f.startsWith('docs/') && !linked.has(f)),
    [],
  );
});

test('every marker before a fence is one the docs tests know, on a block of its kind', () => {
  const wrong = blocks
    .filter((b) => b.marker)
    .filter(
      (b) =>
        !(b.marker === FRAGMENT && b.lang === 'yaml') &&
        !((b.marker === NEEDS_A_CLUSTER || runBy(b.marker)) && SHELLS.has(b.lang)),
    )
    .map((b) => `${at(b)}: <!-- ${b.marker} --> on a ${b.lang || 'plain'} block`);
  assert.deepEqual(wrong, []);
});

test('every YAML block parses, and one not marked a fragment holds whole objects', () => {
  const yaml = blocks.filter((b) => b.lang === 'yaml' || b.lang === 'yml');
  assert.ok(yaml.length > 0);
  const wrong: string[] = [];
  for (const block of yaml) {
    try {
      const manifests = manifestsOf(block.marker === FRAGMENT ? { ...block, body: wholeFragment(block) } : block);
      if (block.marker !== FRAGMENT && manifests.length === 0) wrong.push(`${at(block)}: no object`);
    } catch (error) {
      wrong.push(`${at(block)}: ${(error as Error).message}`);
    }
  }
  assert.deepEqual(wrong, []);
});

/** A fragment is judged for its YAML only: it is wrapped as the body of a whole object. */
function wholeFragment(block: Block): string {
  return `apiVersion: v1\nkind: Fragment\nmetadata: { name: fragment }\nbody:\n${block.body.replace(/^/gm, '  ')}`;
}

test('every shell block needs a cluster, or names the files that run its commands, each of which holds them', () => {
  const shells = blocks.filter((b) => SHELLS.has(b.lang));
  assert.ok(shells.length > 0);
  const wrong: string[] = [];
  for (const block of shells) {
    if (block.marker === NEEDS_A_CLUSTER) continue;
    const files = runBy(block.marker);
    if (!files) {
      wrong.push(`${at(block)}: marked neither <!-- ${NEEDS_A_CLUSTER} --> nor <!-- run by FILE -->`);
      continue;
    }
    const missing = files.filter((f) => !existsSync(path.join(ROOT, f)));
    if (missing.length > 0) {
      wrong.push(`${at(block)}: ${missing.join(', ')} does not exist`);
      continue;
    }
    const sources = files.map((f) => normalised(readFileSync(path.join(ROOT, f), 'utf8')));
    for (const command of commandsOf(block))
      if (!sources.some((s) => s.includes(command))) wrong.push(`${at(block)}: no file it names runs \`${command}\``);
  }
  assert.deepEqual(wrong, []);
});

test('the docs tests read what they are meant to', () => {
  const seen = new Map<string, number>();
  assert.deepEqual(
    [
      'TemporalWorkerDeployment (`twd`)',
      'Steering a rollout: `twc pause`, `promote`',
      'Steering a rollout: `twc pause`, `promote`',
    ].map((h) => slug(h, seen)),
    ['temporalworkerdeployment-twd', 'steering-a-rollout-twc-pause-promote', 'steering-a-rollout-twc-pause-promote-1'],
    "GitHub's anchors",
  );
  assert.ok(readDoc('docs/README.md').anchors.size > 0, 'headings are read');
  assert.ok(
    blocks.some((b) => b.marker === FRAGMENT),
    'fragments are marked',
  );
  assert.deepEqual(
    commandsOf({ file: '', line: 0, lang: 'sh', marker: '', body: 'npm ci && npm test  # all\n# a note\na \\\n  b' }),
    ['npm ci', 'npm test', 'a b'],
  );
  assert.deepEqual(
    commandsOf({ file: '', line: 0, lang: 'console', marker: '', body: '$ twc status\nshop/orders ...' }),
    ['twc status'],
  );
});
