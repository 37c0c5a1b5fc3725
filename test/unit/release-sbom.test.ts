import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageSbom, type NpmSbom } from '../../scripts/release/sbom.ts';

const npm: NpmSbom = {
  bomFormat: 'CycloneDX',
  specVersion: '1.5',
  serialNumber: 'urn:uuid:00000000-0000-4000-8000-000000000001',
  metadata: {
    timestamp: '2026-11-27T06:06:04.137Z',
    component: { 'bom-ref': 'x@0.3.0', type: 'application', name: 'the-folder-npm-ran-in', version: '0.3.0' },
  },
  components: [
    { 'bom-ref': 'yaml@2.9.1', type: 'library', name: 'yaml', version: '2.9.1', purl: 'pkg:npm/yaml@2.9.1' },
    {
      'bom-ref': '@kubernetes/client-node@1.4.0',
      type: 'library',
      name: '@kubernetes/client-node',
      version: '1.4.0',
      purl: 'pkg:npm/%40kubernetes/client-node@1.4.0',
    },
  ],
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

test("the image's bill of materials: the image as its subject, npm's packages, Node.js and the Debian packages, in one order", () => {
  const sbom = imageSbom(npm, image);
  assert.deepEqual(sbom.metadata.component, {
    'bom-ref': 'temporal-worker-controller@0.3.0',
    type: 'container',
    name: 'temporal-worker-controller',
    version: '0.3.0',
    purl: 'pkg:oci/temporal-worker-controller@sha256%3Aabc',
  });
  assert.deepEqual(
    sbom.components?.map((c) => c.purl),
    [
      'pkg:npm/%40kubernetes/client-node@1.4.0',
      'pkg:deb/debian/libc6?distro=bookworm',
      'pkg:deb/debian/tzdata?distro=bookworm',
      'pkg:generic/node@24.21.0',
      'pkg:npm/yaml@2.9.1',
    ],
  );
  assert.equal(sbom.specVersion, '1.5');
});

test('the same release makes the same document: dated by the release, serial number from the image', () => {
  const sbom = imageSbom(npm, image);
  assert.equal(sbom.metadata.timestamp, '2026-09-21T14:13:20.000Z');
  assert.match(
    sbom.serialNumber ?? '',
    /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  const again = imageSbom(
    { ...npm, serialNumber: 'urn:uuid:other', metadata: { ...npm.metadata, timestamp: 'now' } },
    image,
  );
  assert.deepEqual(again, sbom);
  assert.notEqual(imageSbom(npm, { ...image, imageDigest: 'sha256:def' }).serialNumber, sbom.serialNumber);
});
