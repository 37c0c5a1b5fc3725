import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { imageSbom, type PackageLock } from '../../scripts/release/sbom.ts';

const lock: PackageLock = {
  packages: {
    '': { name: 'temporal-worker-controller', version: '0.3.0' },
    'node_modules/yaml': { version: '2.9.1', integrity: 'sha512-AAEC', license: 'ISC' },
    'node_modules/@temporalio/proto': { version: '1.24.0', license: 'MIT' },
    'node_modules/@temporalio/worker': { version: '1.24.0', dev: true },
    'node_modules/pino/node_modules/sonic-boom': { version: '3.0.0' },
    'node_modules/fsevents': { version: '2.3.3', optional: true },
  },
};
const image = {
  name: 'temporal-worker-controller',
  version: '0.3.0',
  imageDigest: 'sha256:abc',
  nodeVersion: '24.21.0',
  debianSuite: 'bookworm',
  debianPackages: ['libc6', 'tzdata'],
  epoch: 1790000000,
};

test("the image's bill of materials: the image as its subject, the lock's packages but dev ones, Node.js and the Debian packages", () => {
  const sbom = imageSbom(lock, image);
  assert.deepEqual(sbom.metadata.component, {
    'bom-ref': 'temporal-worker-controller@0.3.0',
    type: 'container',
    name: 'temporal-worker-controller',
    version: '0.3.0',
    purl: 'pkg:oci/temporal-worker-controller@sha256%3Aabc',
  });
  assert.deepEqual(
    sbom.components.map((c) => [c.purl, c.scope ?? 'required']),
    [
      ['pkg:deb/debian/libc6?distro=bookworm', 'required'],
      ['pkg:deb/debian/tzdata?distro=bookworm', 'required'],
      ['pkg:npm/%40temporalio/proto@1.24.0', 'required'],
      ['pkg:npm/fsevents@2.3.3', 'optional'],
      ['pkg:npm/sonic-boom@3.0.0', 'required'],
      ['pkg:npm/yaml@2.9.1', 'required'],
      ['pkg:generic/node@24.21.0', 'required'],
    ],
  );
  const yaml = sbom.components.find((c) => c.name === 'yaml');
  assert.deepEqual(yaml?.hashes, [{ alg: 'SHA-512', content: '000102' }], "the lock's integrity, in hex");
  assert.deepEqual(yaml?.licenses, [{ expression: 'ISC' }]);
});

test('the same release makes the same document: dated by the release, serial number from the image', () => {
  const sbom = imageSbom(lock, image);
  assert.equal(sbom.metadata.timestamp, '2026-09-21T14:13:20.000Z');
  assert.match(sbom.serialNumber, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(imageSbom(lock, image), sbom);
  assert.notEqual(imageSbom(lock, { ...image, imageDigest: 'sha256:def' }).serialNumber, sbom.serialNumber);
});

test("this project's lock: every production dependency of package.json is in the bill of materials", () => {
  const root = path.join(import.meta.dirname, '../..');
  const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown;
  const { dependencies } = read('package.json') as { dependencies: Record<string, string> };
  const names = new Set(imageSbom(read('package-lock.json') as PackageLock, image).components.map((c) => c.name));
  assert.deepEqual(
    Object.keys(dependencies).filter((name) => !names.has(name)),
    [],
  );
  assert.ok(!names.has('@temporalio/worker'), 'a dev dependency is not');
});
