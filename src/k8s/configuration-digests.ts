// What a build's Deployment carries of the ConfigMaps and Secrets its own Pod template reads: per
// object, a short digest of the keys read and of whether it exists, in one annotation of the Pod
// template. Workers read configuration when they start (a variable) or as the kubelet last wrote
// it (a file), so only new Pods surely see a change: a changed digest changes the template, and
// the Deployment controller rolls the Pods, under the same build ID. The digests are of values,
// never a value; a Secret's also covers its uid, which only those who may read the Secret see, so
// the digest of a guessable value cannot be guessed from the Deployment alone. Pure: the objects
// are passed in, as cached.
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import {
  type ConfigurationKind,
  type ConfigurationReference,
  objectId,
  type ReadObject,
  readObjects,
} from './configuration-references.ts';
import { ANNOTATIONS } from './versioned-deployment.ts';

/** Per object (`ConfigMap/settings`), the digest of what the template reads of it. */
export type ConfigurationDigests = Record<string, string>;

/** A ConfigMap or a Secret as the cache holds it. */
export interface ConfigurationObject {
  metadata?: { uid?: string };
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** An object of the template's namespace, undefined when it does not exist. */
export type ConfigurationLookup = (kind: ConfigurationKind, name: string) => ConfigurationObject | undefined;

export interface ReadConfiguration {
  digests: ConfigurationDigests;
  /** The objects the Pods cannot start without that do not exist. */
  missing: ReadObject[];
}

const DIGEST_LENGTH = 16;

/** What these references (of one template, or of all a build's pools) read, digested. */
export function readConfiguration(
  references: readonly ConfigurationReference[],
  lookup: ConfigurationLookup,
): ReadConfiguration {
  const digests: ConfigurationDigests = {};
  const missing: ReadObject[] = [];
  for (const read of readObjects(references)) {
    const object = lookup(read.kind, read.name);
    if (!object && !read.optional) missing.push(read);
    digests[objectId(read)] = digestOf(read, object);
  }
  return { digests, missing };
}

/**
 * Per object as cached (the cache holds a new object for every change), its digests by what is
 * read of it: every reconcile digests every build's configuration, and a ConfigMap may be large.
 */
const digested = new WeakMap<ConfigurationObject, Map<string, string>>();

function digestOf(read: ReadObject, object: ConfigurationObject | undefined): string {
  if (!object) return createHash('sha256').update('absent').digest('hex').slice(0, DIGEST_LENGTH);
  const known = digested.get(object) ?? new Map<string, string>();
  digested.set(object, known);
  const as = JSON.stringify([read.kind, read.keys ?? null]);
  const digest = known.get(as) ?? digestOfValues(read, object);
  known.set(as, digest);
  return digest;
}

function digestOfValues(read: ReadObject, object: ConfigurationObject): string {
  const hash = createHash('sha256');
  if (read.kind === 'Secret') hash.update(`uid\u0000${object.metadata?.uid ?? ''}\u0000`);
  // data and binaryData apart: the same text in the other map is another file.
  const values = new Map<string, string>([
    ...Object.entries(object.data ?? {}).map(([k, v]): [string, string] => [k, `d${v}`]),
    ...Object.entries(object.binaryData ?? {}).map(([k, v]): [string, string] => [k, `b${v}`]),
  ]);
  const keys = read.keys ?? [...values.keys()];
  // Each key's name and presence too: a key that appears or goes is a change.
  for (const key of [...new Set(keys)].sort()) {
    const value = values.get(key);
    hash.update(`${key}\u0000${value === undefined ? 'absent' : `=${value}`}\u0000`);
  }
  return hash.digest('hex').slice(0, DIGEST_LENGTH);
}

/** The template with these digests on it, or with none when it reads nothing. */
export function withConfigurationDigests(
  template: V1PodTemplateSpec,
  digests: ConfigurationDigests,
): V1PodTemplateSpec {
  const annotations = { ...template.metadata?.annotations };
  delete annotations[ANNOTATIONS.configurationHashes];
  if (Object.keys(digests).length > 0) annotations[ANNOTATIONS.configurationHashes] = digestsText(digests);
  return { ...template, metadata: { ...template.metadata, annotations } };
}

/** The digests a Pod template carries; undefined when it carries none (or none that can be read). */
export function carriedDigests(template: V1PodTemplateSpec | undefined): ConfigurationDigests | undefined {
  const text = template?.metadata?.annotations?.[ANNOTATIONS.configurationHashes];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    // Edited by hand into something else: a roll writes it again.
    return {};
  }
}

/** Why a Deployment carrying `carried` must be rolled to carry `now`, naming the objects; undefined when they agree. */
export function configurationChange(
  carried: ConfigurationDigests | undefined,
  now: ConfigurationDigests,
): string | undefined {
  if (digestsText(carried ?? {}) === digestsText(now)) return undefined;
  const all = Object.keys(now).sort();
  if (carried === undefined)
    return `the configuration its Pods read (${all.map(named).join(', ')}) has no digest on it yet (made by an earlier controller)`;
  const changed = all.filter((id) => id in carried && carried[id] !== now[id]);
  const added = all.filter((id) => !(id in carried));
  const gone = Object.keys(carried)
    .filter((id) => !(id in now))
    .sort();
  const parts = [
    ...(changed.length > 0 ? [`${changed.map(named).join(', ')} changed`] : []),
    ...(added.length > 0 ? [`${added.map(named).join(', ')} now read`] : []),
    ...(gone.length > 0 ? [`${gone.map(named).join(', ')} no longer read`] : []),
  ];
  return `the configuration its Pods read changed: ${parts.join('; ')}`;
}

/** `ConfigMap/settings` as people read it: `ConfigMap settings`. */
function named(id: string): string {
  return id.replace('/', ' ');
}

function digestsText(digests: ConfigurationDigests): string {
  return JSON.stringify(Object.fromEntries(Object.entries(digests).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}
