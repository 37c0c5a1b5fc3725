// The build ID of a pod template. It is part of every Deployment name and of the Temporal
// version, so it must not change when the controller is upgraded: it depends only on what the
// user wrote in spec.template, canonicalised by RFC 8785 (JSON Canonicalization Scheme), not on
// how any library or release of ours orders or encodes it.
import { canonicalHash } from '../api/spec-hash.ts';

export const MAX_BUILD_ID_LENGTH = 63;
const HASH_LENGTH = 10;

interface PodTemplate {
  metadata?: unknown;
  spec?: { containers?: { image?: string }[] };
}

/**
 * `unsafeCustomBuildID` when set (cleaned to a label value), else `<image tag>-<hash>`: the first
 * container's image tag (or digest, or repository) for people to read, and 10 hex characters of
 * SHA-256 over the canonical template, with the pools' own templates when some have one
 * (k8s/pool-template.ts), so that any change to what a Pod runs makes a new build; and with the
 * digests of the ConfigMaps and Secrets the templates read when the worker deployment makes their
 * change a new build (workerOptions.onConfigChange: NewBuild).
 */
export function buildIdOf(
  template: PodTemplate,
  customBuildId?: string,
  poolTemplates?: Record<string, unknown>,
  configuration?: Record<string, string>,
): string {
  const custom = customBuildId === undefined ? '' : labelValue(customBuildId);
  if (custom) return custom;
  // Without pool templates or configuration the hash is the template's alone, as before they
  // counted: no build ID changes on upgrade.
  const read = configuration && Object.keys(configuration).length > 0 ? configuration : undefined;
  const hashed =
    poolTemplates || read
      ? { template, ...(poolTemplates ? { pools: poolTemplates } : {}), ...(read ? { configuration: read } : {}) }
      : template;
  const hash = templateHash(hashed).slice(0, HASH_LENGTH);
  const readable = labelValue(imageLabel(template.spec?.containers?.[0]?.image ?? '')).slice(
    0,
    MAX_BUILD_ID_LENGTH - HASH_LENGTH - 1,
  );
  return readable ? labelValue(`${readable}-${hash}`) : hash;
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of a value. */
export const templateHash = canonicalHash;

/** The part of an image reference that tells builds apart: tag, else digest, else repository. */
function imageLabel(image: string): string {
  const [name = '', digest] = image.split('@');
  const lastSlash = name.lastIndexOf('/');
  const tagAt = name.indexOf(':', lastSlash + 1);
  if (tagAt >= 0) return name.slice(tagAt + 1);
  if (digest) return digest.replace(/^[a-z0-9]+:/, '').slice(0, 12);
  return name.split('/').slice(-2).join('-');
}

/** A valid label value: runs of other characters become '-', ends trimmed, at most 63 characters. */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, MAX_BUILD_ID_LENGTH)
    .replace(/^[-._]+|[-._]+$/g, '');
}
