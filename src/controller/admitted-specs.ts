// A worker deployment's spec with the schema's defaults, and what admission would refuse of it,
// worked out once per spec rather than once per reconcile. Every reconcile writes a status, so the
// informer hands the next one a new object with the same spec: defaulting and validating that spec
// again was a quarter of a reconcile's CPU (measured in the simulator).
import { hash } from 'node:crypto';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { temporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { type FieldError, unknownFields, validate, withDefaults } from '../api/validate.ts';

export interface AdmittedSpec {
  /** With the schema's defaults; frozen, as every reconcile of that spec shares it. */
  spec: TemporalWorkerDeployment['spec'];
  /** What admission would refuse of the spec and the name. */
  invalid: FieldError[];
}

/** Enough for every worker deployment of a large cluster; past it, the least recently used one's spec is worked out again. */
const LIMIT = 4096;

export class AdmittedSpecs {
  /**
   * Per worker deployment (namespace/name), a digest of its last spec's text and that spec
   * admitted: one spec each, as a spec replaced by a rollout is not read again (and the Deployments
   * built from it, kept as long as it is, went with it: observe-kubernetes.ts). A digest, as the text was
   * most of what this kept.
   */
  private readonly known = new Map<string, { digest: string; admitted: AdmittedSpec }>();
  private readonly limit: number;

  constructor(limit = LIMIT) {
    this.limit = limit;
  }

  /** The spec of `object` (its status aside) admitted: from memory when the same worker deployment had the same spec last. */
  of(object: Omit<TemporalWorkerDeployment, 'status'>): AdmittedSpec {
    const key = `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
    const digest = hash('sha256', JSON.stringify(object.spec), 'base64');
    const known = this.known.get(key);
    // Most recently used last: the first key is the one to forget.
    this.known.delete(key);
    if (known?.digest === digest) {
      this.known.set(key, known);
      return known.admitted;
    }
    // The name is the one part of the metadata admission judges.
    const defaulted = withDefaults(temporalWorkerDeployment, object);
    // A field it does not know is not ignored: it might hold back what the controller would do.
    const invalid = [
      ...validate(temporalWorkerDeployment, defaulted),
      ...unknownFields(temporalWorkerDeployment.properties.spec, defaulted.spec, 'spec'),
    ];
    const admitted = { spec: deepFreeze(defaulted.spec), invalid };
    this.known.set(key, { digest, admitted });
    if (this.known.size > this.limit) this.known.delete(this.known.keys().next().value ?? '');
    return admitted;
  }

  /** A worker deployment gone. */
  forget(namespace: string, name: string): void {
    this.known.delete(`${namespace}/${name}`);
  }
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
