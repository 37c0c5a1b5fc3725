// The image's bill of materials, CycloneDX 1.5 JSON: the npm packages that `npm ci --omit=dev`
// would install, read from package-lock.json (the image holds them bundled into the CLI, each as
// far as the CLI imports it: scripts/bundle.ts), plus what the image adds around them
// (Node.js and the Debian packages it unpacks). The same inputs make the same document: no clock,
// no random serial number. (`npm sbom --omit dev --package-lock-only` left out production packages
// that dev ones also need, @temporalio/proto among them: hence our own reading of the lock.)
import { createHash } from 'node:crypto';

/** package-lock.json (lockfileVersion 3), as far as this reads it. */
export interface PackageLock {
  packages: Record<
    string,
    {
      name?: string;
      version?: string;
      integrity?: string;
      license?: string;
      dev?: boolean;
      optional?: boolean;
      link?: boolean;
    }
  >;
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

interface Component {
  'bom-ref': string;
  type: 'container' | 'library' | 'platform';
  name: string;
  version?: string;
  scope?: 'optional';
  purl: string;
  hashes?: { alg: string; content: string }[];
  licenses?: { expression: string }[];
}

export interface Sbom {
  bomFormat: 'CycloneDX';
  specVersion: '1.5';
  serialNumber: string;
  version: 1;
  metadata: { timestamp: string; component: Component };
  components: Component[];
}

/** A name-based UUID (RFC 9562 version 8) from `seed`, as a CycloneDX serial number. */
function serialNumber(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const HASH_NAMES: Record<string, string> = { sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256', sha1: 'SHA-1' };

/** The npm packages installed without dev dependencies, one component per place in node_modules. */
function npmComponents(lock: PackageLock): Component[] {
  return Object.entries(lock.packages).flatMap(([where, entry]) => {
    if (!where.startsWith('node_modules/') && !where.includes('/node_modules/')) return [];
    if (entry.dev || entry.link || !entry.version) return [];
    const name = entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const [alg = '', digest = ''] = (entry.integrity ?? '').split('-', 2);
    return [
      {
        'bom-ref': `${where}@${entry.version}`,
        type: 'library' as const,
        name,
        version: entry.version,
        ...(entry.optional ? { scope: 'optional' as const } : {}),
        purl: `pkg:npm/${name.replace('@', '%40')}@${entry.version}`,
        ...(HASH_NAMES[alg]
          ? { hashes: [{ alg: HASH_NAMES[alg], content: Buffer.from(digest, 'base64').toString('hex') }] }
          : {}),
        ...(entry.license ? { licenses: [{ expression: entry.license }] } : {}),
      },
    ];
  });
}

export function imageSbom(lock: PackageLock, image: ImageContents): Sbom {
  const node: Component = {
    'bom-ref': `node@${image.nodeVersion}`,
    type: 'platform',
    name: 'node',
    version: image.nodeVersion,
    purl: `pkg:generic/node@${image.nodeVersion}`,
  };
  // mmdebstrap's extract variant runs no dpkg, so the image records no package versions: the
  // suite names them (a release is as current as Debian's mirror was on its day).
  const debian: Component[] = image.debianPackages.map((name) => ({
    'bom-ref': `deb:${name}`,
    type: 'library',
    name,
    purl: `pkg:deb/debian/${name}?distro=${image.debianSuite}`,
  }));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: serialNumber(`${image.name}@${image.version} ${image.imageDigest}`),
    version: 1,
    metadata: {
      timestamp: new Date(image.epoch * 1000).toISOString(),
      component: {
        'bom-ref': `${image.name}@${image.version}`,
        type: 'container',
        name: image.name,
        version: image.version,
        purl: `pkg:oci/${image.name}@${encodeURIComponent(image.imageDigest)}`,
      },
    },
    components: [...npmComponents(lock), node, ...debian].sort((a, b) => a['bom-ref'].localeCompare(b['bom-ref'])),
  };
}
