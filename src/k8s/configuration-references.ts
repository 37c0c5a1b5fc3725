// The ConfigMaps and Secrets a Pod template reads: its containers' and init containers' variables
// (env valueFrom, envFrom) and its volumes (configMap, secret, and a projected volume's sources).
// The controller's own connection parts (its volumes and variables) are left out: the connection
// hash covers them. Pure.
import type { V1Container, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';
import { CONNECTION_ENV } from '../api/reserved-env.ts';
import { CA_VOLUME, TLS_VOLUME, TOKEN_VOLUME } from './versioned-deployment.ts';

export type ConfigurationKind = 'ConfigMap' | 'Secret';

/** One place in a template that reads a ConfigMap or a Secret. */
export interface ConfigurationReference {
  kind: ConfigurationKind;
  name: string;
  /** The keys read; undefined: every key (envFrom, a volume without items). */
  keys?: string[];
  /** The Pods start without it (`optional: true`). */
  optional: boolean;
  /** Where the template names it, for people: `container worker envFrom[0]`, `volume settings`. */
  field: string;
}

/** One ConfigMap or Secret as the whole template reads it. */
export interface ReadObject {
  kind: ConfigurationKind;
  name: string;
  /** Undefined: every key. */
  keys?: string[];
  /** Every reference to it is optional. */
  optional: boolean;
  /** The first place that names it, a required one if any is. */
  field: string;
}

const OUR_VOLUMES = new Set([TLS_VOLUME, CA_VOLUME, TOKEN_VOLUME]);
const OUR_ENV = new Set<string>(CONNECTION_ENV);

export function configurationReferences(template: V1PodTemplateSpec | undefined): ConfigurationReference[] {
  const spec = template?.spec;
  if (!spec) return [];
  return [
    ...(spec.initContainers ?? []).flatMap((c) => containerReferences(c, `init container ${c.name}`)),
    ...spec.containers.flatMap((c) => containerReferences(c, `container ${c.name}`)),
    ...(spec.volumes ?? []).filter((v) => !OUR_VOLUMES.has(v.name)).flatMap(volumeReferences),
  ].filter((r) => r.name !== '');
}

/** The references merged per object, in the order first named: the keys of all, required if one is. */
export function readObjects(references: readonly ConfigurationReference[]): ReadObject[] {
  const byObject = new Map<string, ReadObject>();
  for (const reference of references) {
    const id = objectId(reference);
    const known = byObject.get(id);
    if (!known) {
      const { kind, name, keys, optional, field } = reference;
      byObject.set(id, { kind, name, ...(keys ? { keys: [...keys] } : {}), optional, field });
      continue;
    }
    if (!reference.keys) delete known.keys;
    else if (known.keys) known.keys = [...new Set([...known.keys, ...reference.keys])];
    if (known.optional && !reference.optional) Object.assign(known, { optional: false, field: reference.field });
  }
  return [...byObject.values()];
}

/** `ConfigMap/settings`: how the digests and messages name an object of the template's namespace. */
export function objectId(object: { kind: ConfigurationKind; name: string }): string {
  return `${object.kind}/${object.name}`;
}

function containerReferences(container: V1Container, where: string): ConfigurationReference[] {
  const fromEnv = (container.env ?? []).flatMap((variable): ConfigurationReference[] => {
    if (OUR_ENV.has(variable.name)) return [];
    const field = `${where} env ${variable.name}`;
    const { configMapKeyRef: configMap, secretKeyRef: secret } = variable.valueFrom ?? {};
    if (configMap) return [reference('ConfigMap', configMap.name, [configMap.key], configMap.optional, field)];
    if (secret) return [reference('Secret', secret.name, [secret.key], secret.optional, field)];
    return [];
  });
  const fromEnvFrom = (container.envFrom ?? []).flatMap((source, i): ConfigurationReference[] => {
    const field = `${where} envFrom[${i}]`;
    if (source.configMapRef)
      return [reference('ConfigMap', source.configMapRef.name, undefined, source.configMapRef.optional, field)];
    if (source.secretRef)
      return [reference('Secret', source.secretRef.name, undefined, source.secretRef.optional, field)];
    return [];
  });
  return [...fromEnv, ...fromEnvFrom];
}

function volumeReferences(volume: V1Volume): ConfigurationReference[] {
  const field = `volume ${volume.name}`;
  const keysOf = (items: { key: string }[] | undefined) => items?.map((i) => i.key);
  const found: ConfigurationReference[] = [];
  if (volume.configMap)
    found.push(
      reference('ConfigMap', volume.configMap.name, keysOf(volume.configMap.items), volume.configMap.optional, field),
    );
  if (volume.secret)
    found.push(
      reference('Secret', volume.secret.secretName, keysOf(volume.secret.items), volume.secret.optional, field),
    );
  (volume.projected?.sources ?? []).forEach((source, i) => {
    const at = `${field} sources[${i}]`;
    if (source.configMap)
      found.push(
        reference('ConfigMap', source.configMap.name, keysOf(source.configMap.items), source.configMap.optional, at),
      );
    if (source.secret)
      found.push(reference('Secret', source.secret.name, keysOf(source.secret.items), source.secret.optional, at));
  });
  return found;
}

function reference(
  kind: ConfigurationKind,
  name: string | undefined,
  keys: string[] | undefined,
  optional: boolean | undefined,
  field: string,
): ConfigurationReference {
  return { kind, name: name ?? '', ...(keys ? { keys } : {}), optional: optional === true, field };
}
