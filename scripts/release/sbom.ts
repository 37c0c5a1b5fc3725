// The image's bill of materials, CycloneDX 1.5 JSON: the production npm packages as `npm sbom`
// reads them from the lock file, plus what the image adds around them (Node.js and the Debian
// packages it unpacks). npm's output names the folder and the hour it ran in; a release must not
// depend on either, so the document is made the same for the same inputs.
import { createHash } from 'node:crypto';

interface Component {
  'bom-ref'?: string;
  type: string;
  name: string;
  version?: string;
  purl?: string;
  [field: string]: unknown;
}

/** What `npm sbom --sbom-format cyclonedx` writes, as far as this reads it. */
export interface NpmSbom {
  bomFormat: string;
  specVersion: string;
  serialNumber?: string;
  metadata: { timestamp?: string; component?: Component; [field: string]: unknown };
  components?: Component[];
  [field: string]: unknown;
}

export interface ImageContents {
  /** The package's name and version, as package.json says. */
  name: string;
  version: string;
  /** The OCI image's manifest digest (`sha256:…`). */
  imageDigest: string;
  nodeVersion: string;
  debianSuite: string;
  debianPackages: readonly string[];
  /** The release's date (SOURCE_DATE_EPOCH, seconds). */
  epoch: number;
}

/** A name-based UUID (RFC 9562 version 8) from `seed`, as a CycloneDX serial number. */
function serialNumber(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function imageSbom(npm: NpmSbom, image: ImageContents): NpmSbom {
  const application: Component = {
    ...npm.metadata.component,
    'bom-ref': `${image.name}@${image.version}`,
    type: 'container',
    name: image.name,
    version: image.version,
    purl: `pkg:oci/${image.name}@${encodeURIComponent(image.imageDigest)}`,
  };
  const node: Component = {
    'bom-ref': `node@${image.nodeVersion}`,
    type: 'platform',
    name: 'node',
    version: image.nodeVersion,
    purl: `pkg:generic/node@${image.nodeVersion}`,
  };
  // mmdebstrap's extract variant runs no dpkg, so the image records no package versions: the
  // suite names them (the release is as current as Debian's mirror was on its day).
  const debian: Component[] = image.debianPackages.map((name) => ({
    'bom-ref': `deb:${name}`,
    type: 'library',
    name,
    purl: `pkg:deb/debian/${name}?distro=${image.debianSuite}`,
  }));
  const components = [...(npm.components ?? []), node, ...debian].sort((a, b) =>
    (a['bom-ref'] ?? a.name).localeCompare(b['bom-ref'] ?? b.name),
  );
  const withoutTime = { ...npm.metadata, component: application };
  delete withoutTime.timestamp;
  return {
    ...npm,
    serialNumber: serialNumber(`${image.name}@${image.version} ${image.imageDigest}`),
    metadata: { ...withoutTime, timestamp: new Date(image.epoch * 1000).toISOString() },
    components,
  };
}
