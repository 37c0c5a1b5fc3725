// Builders for Kubernetes-flavoured JSON schemas. A schema built here is at once the TypeScript
// type (TypeBox's Static), the runtime validator (TypeBox plus the TypeScript side of each rule)
// and, through crd.ts, the OpenAPI schema of a CustomResourceDefinition.
import { type SchemaOptions, type TSchema, type TString, Type } from '@sinclair/typebox';

/**
 * A validation rule stated twice, side by side: in CEL for the API server, and in TypeScript for
 * the controller, which must not trust that admission ran. Tests hold the two to each other.
 */
export interface Rule<Self = never> {
  /** CEL evaluated by the API server with `self` (and `oldSelf` for transition rules). */
  cel: string;
  /** Shown to the user; it names what to change. */
  message: string;
  /** A message built from the value, in place of `message`: in CEL (`messageExpression`) and the same in TypeScript. */
  explanation?: { cel: string; text: (self: Self) => string };
  /** Where the API server points the error, relative to the object the rule sits on (`.steps`). */
  fieldPath?: string;
  /** The same rule in TypeScript; `old` is given on update for transition rules. */
  check: (self: Self, old: Self | undefined) => boolean;
  /** A rule about change (uses oldSelf): skipped on create. */
  transition?: boolean;
}

// Kept on the schema object itself, under a symbol: TypeBox copies symbol keys when it wraps
// a schema (Type.Optional), and JSON serialisation ignores them.
const RULES = Symbol('rules');

/** Attaches rules to a schema (as `x-kubernetes-validations` in the CRD). */
export function withRules<T extends TSchema>(schema: T, ...attached: Rule<T['static']>[]): T {
  const all = [...rulesOf(schema), ...(attached as Rule<unknown>[])];
  Object.assign(schema, {
    [RULES]: all,
    'x-kubernetes-validations': all.map((r) => ({
      rule: r.cel,
      message: r.message,
      ...(r.explanation ? { messageExpression: r.explanation.cel } : {}),
      ...(r.fieldPath ? { fieldPath: r.fieldPath } : {}),
    })),
  });
  return schema;
}

export function rulesOf(schema: TSchema): readonly Rule<unknown>[] {
  return (schema as { [RULES]?: Rule<unknown>[] })[RULES] ?? [];
}

export const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const LABEL_VALUE = '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$';
/** A Go duration: `30s`, `1h30m`, `1.5h`. */
export const DURATION = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

export function dnsLabel(description: string, options: SchemaOptions = {}): TString {
  return Type.String({ description, minLength: 1, maxLength: 63, pattern: DNS_LABEL, ...options });
}

export function duration(description: string, options: SchemaOptions = {}): TString {
  return Type.String({ description, pattern: DURATION, ...options });
}

export function int32(description: string, options: SchemaOptions = {}) {
  return Type.Integer({ description, format: 'int32', minimum: 0, maximum: 2147483647, ...options });
}

export function stringMap(description: string) {
  return Type.Record(Type.String(), Type.String(), { description });
}

/** A count or a percentage, as Kubernetes' IntOrString (e.g. 1 or "25%"). */
export function intOrPercent(description: string) {
  return Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]+%$' })], {
    description,
    'x-kubernetes-int-or-string': true,
  });
}

/** An object whose fields the API server keeps as given: for nested Kubernetes types we do not restate. */
export function freeform(description: string, options: SchemaOptions = {}) {
  return Type.Record(Type.String(), Type.Unknown(), {
    description,
    'x-kubernetes-preserve-unknown-fields': true,
    ...options,
  });
}

/** A reference to a key of a Secret or ConfigMap in the same namespace. */
export function keyRef(of: 'Secret' | 'ConfigMap') {
  return Type.Object(
    {
      name: dnsLabel(`Name of the ${of}.`, { maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' }),
      key: Type.String({ description: `Key in the ${of}'s data.`, minLength: 1 }),
    },
    { description: `A key of a ${of} in the object's namespace.` },
  );
}

/** Seconds in a Go duration string, as CEL's duration() and the controller read it. */
export function durationSeconds(value: string): number {
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(amount) * (units[unit ?? 's'] ?? 0);
  return total;
}

/** Milliseconds as a duration string would be written: `1h`, `2m`, `10s`. */
export function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

/** The metadata fields the controller reads; the API server owns the schema of metadata. */
export function objectMeta() {
  return Type.Object(
    {
      name: Type.Optional(Type.String()),
      namespace: Type.Optional(Type.String()),
      uid: Type.Optional(Type.String()),
      generation: Type.Optional(Type.Integer()),
      resourceVersion: Type.Optional(Type.String()),
      finalizers: Type.Optional(Type.Array(Type.String())),
      annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
      ownerReferences: Type.Optional(
        Type.Array(
          Type.Object({
            apiVersion: Type.String(),
            kind: Type.String(),
            name: Type.String(),
            uid: Type.String(),
            controller: Type.Optional(Type.Boolean()),
            blockOwnerDeletion: Type.Optional(Type.Boolean()),
          }),
        ),
      ),
    },
    { additionalProperties: true },
  );
}
