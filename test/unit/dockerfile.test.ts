// The Dockerfile builds, for those with Docker, the image `npm run image` builds without one: the
// same Debian packages, Node.js, user, environment and entrypoint. (No Docker engine runs here to
// build it; this keeps the two from drifting apart.) bin/twc, a shell script, runs the sources with
// the same V8 flags.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { IMAGE_ENTRYPOINT, IMAGE_ENV, NODE_FLAGS } from '../../scripts/image/build.ts';
import { DEBIAN_PACKAGES, DEBIAN_SUITE, USER_ID } from '../../scripts/image/root-filesystem.ts';

const ROOT = path.join(import.meta.dirname, '../..');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const instruction = (name: string): string[] =>
  [...dockerfile.matchAll(new RegExp(`^${name} (.+)$`, 'gm'))].map((match) => match[1] ?? '');

test('the same Debian packages and suite', () => {
  const mmdebstrap = /mmdebstrap --variant=extract --include=(\S+) --quiet (\S+)/.exec(dockerfile);
  assert.deepEqual(mmdebstrap?.[1]?.split(','), DEBIAN_PACKAGES);
  assert.equal(mmdebstrap?.[2], DEBIAN_SUITE);
});

test('the Node.js that package.json pins', () => {
  const { devDependencies } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  assert.match(instruction('FROM')[0] ?? '', new RegExp(`^node:${devDependencies.node}-${DEBIAN_SUITE}-slim AS app$`));
});

test('the same user, environment and entrypoint', () => {
  assert.deepEqual(instruction('USER'), [`${USER_ID}:${USER_ID}`]);
  assert.deepEqual(instruction('ENV')[0]?.split(' '), IMAGE_ENV);
  assert.deepEqual(JSON.parse(instruction('ENTRYPOINT')[0] ?? '[]'), IMAGE_ENTRYPOINT);
});

test("bin/twc runs the sources with the image's V8 flags", () => {
  const exec = /^exec "\$node" (.+) "\$here\/\.\.\/src\/cli\/main\.ts" "\$@"$/m.exec(
    readFileSync(path.join(ROOT, 'bin/twc'), 'utf8'),
  );
  assert.deepEqual(exec?.[1]?.split(' '), NODE_FLAGS);
});
