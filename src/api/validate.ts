// Runtime validation of our custom resources with the same schemas and rules the API server
// enforces, so the controller never acts on an object that admission would have refused.
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { rulesOf } from './schema.ts';

// String formats our schemas use, checked as the API server checks them.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
FormatRegistry.Set('date-time', (value) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)));

export interface FieldError {
  /** Dotted path of the field, `spec.rollout.steps[1].rampPercentage`; empty for the object itself. */
  field: string;
  message: string;
}

export class InvalidObjectError extends Error {
  override name = 'InvalidObjectError';
  readonly errors: FieldError[];
  constructor(what: string, errors: FieldError[]) {
    super(`${what} is invalid: ${errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ')}`);
    this.errors = errors;
  }
}

/** The errors of `value` against `schema` and its rules; `old` is the previous object on update. */
export function validate(schema: TSchema, value: unknown, old?: unknown): FieldError[] {
  // Most objects fit: a compiled check says so in a fraction of the time listing errors takes.
  if (!checkerOf(schema).Check(value)) {
    const structural = [...Value.Errors(schema, value)].map((e) => ({ field: fieldOf(e.path), message: e.message }));
    // Rules assume well-typed input, as CEL does after the schema passed.
    if (structural.length > 0) return dedupe(structural);
  }
  const errors: FieldError[] = [];
  checkRules(schema, value, old, '', errors);
  return errors;
}

/**
 * The fields of `value` that `schema` does not name, where it names its fields (a part kept whole,
 * as a Pod template or a map is, has none). The API server prunes what the installed CRD does not
 * know, so these reach the controller only when its CRD is newer than itself: a rollback of the
 * controller, or a CRD upgraded first. Such a field may ask for more care than the controller
 * would take without it.
 */
export function unknownFields(schema: TSchema, value: unknown, path: string): FieldError[] {
  if (value === null || typeof value !== 'object' || schema['x-kubernetes-preserve-unknown-fields']) return [];
  if (Array.isArray(value))
    return schema.type === 'array'
      ? value.flatMap((item, i) => unknownFields(schema.items as TSchema, item, `${path}[${i}]`))
      : [];
  if (schema.type !== 'object') return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const values = schema.additionalProperties as TSchema | boolean | undefined;
  return Object.entries(value).flatMap(([key, item]) => {
    const known = properties[key] ?? (typeof values === 'object' ? values : undefined);
    if (known) return unknownFields(known, item, `${path}.${key}`);
    if (values === true || schema.patternProperties) return [];
    return [{ field: `${path}.${key}`, message: "a field this controller does not know (a newer version's?)" }];
  });
}

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf(schema: TSchema): TypeCheck<TSchema> {
  let checker = checkers.get(schema);
  if (!checker) checkers.set(schema, (checker = TypeCompiler.Compile(schema)));
  return checker;
}

/**
 * What of `value` fits `schema`: a property or list item that does not fit, and cannot be made to
 * by leaving out parts of its own, is left out, the smallest part first. `value` undefined when
 * nothing fits; `left` says what was left out, and why.
 */
export function fittingPart(schema: TSchema, value: unknown, path = ''): { value?: unknown; left: FieldError[] } {
  const errors = validate(schema, value);
  if (errors.length === 0) return { value, left: [] };
  const left: FieldError[] = [];
  const fit = (child: TSchema, item: unknown, at: string): unknown => {
    const part = fittingPart(child, item, at);
    left.push(...part.left);
    return part.value;
  };
  let kept = value;
  if (schema.type === 'object' && schema.properties && typeof value === 'object' && value !== null) {
    const object: Record<string, unknown> = { ...value };
    for (const [key, child] of Object.entries(schema.properties as Record<string, TSchema>)) {
      if (object[key] === undefined) continue;
      const part = fit(child, object[key], join(path, `.${key}`));
      if (part === undefined) delete object[key];
      else object[key] = part;
    }
    kept = object;
  } else if (schema.type === 'array' && Array.isArray(value)) {
    kept = value.flatMap((item, i) => {
      const part = fit(schema.items as TSchema, item, `${path}[${i}]`);
      return part === undefined ? [] : [part];
    });
  }
  if (validate(schema, kept).length === 0) return { value: kept, left };
  // Left out whole, for what was wrong with it as it was: the first word on each field.
  const fields = new Map<string, string>();
  for (const e of errors) {
    const field = e.field.startsWith('[') ? `${path}${e.field}` : join(path, e.field && `.${e.field}`);
    if (!fields.has(field)) fields.set(field, e.message);
  }
  return { left: [...fields].map(([field, message]) => ({ field, message })) };
}

/** A copy of `value` with the schema's defaults filled in, as the API server stores it. */
export function withDefaults<T>(schema: TSchema, value: T): T {
  // A schema without defaults (the status's) leaves nothing to fill in: a copy is all it takes.
  return hasDefaults(schema) ? (Value.Default(schema, Value.Clone(value)) as T) : structuredClone(value);
}

const defaulting = new WeakMap<TSchema, boolean>();

function hasDefaults(schema: TSchema): boolean {
  let known = defaulting.get(schema);
  if (known === undefined) defaulting.set(schema, (known = JSON.stringify(schema).includes('"default":')));
  return known;
}

function checkRules(schema: TSchema, value: unknown, old: unknown, path: string, errors: FieldError[]): void {
  if (value === undefined) return;
  for (const rule of rulesOf(schema)) {
    if (rule.transition && old === undefined) continue;
    if (!rule.check(value, old))
      errors.push({ field: join(path, rule.fieldPath ?? ''), message: rule.explanation?.text(value) ?? rule.message });
  }
  if (schema.type === 'object' && schema.properties && typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const oldChild = typeof old === 'object' && old !== null ? (old as Record<string, unknown>)[key] : undefined;
      checkRules(child, (value as Record<string, unknown>)[key], oldChild, join(path, `.${key}`), errors);
    }
  } else if (schema.type === 'array' && Array.isArray(value)) {
    // Kubernetes compares list items with their old counterparts only for map lists; we need no transition rule there.
    value.forEach((item, i) => checkRules(schema.items as TSchema, item, undefined, `${path}[${i}]`, errors));
  }
}

function join(path: string, relative: string): string {
  return `${path}${relative}`.replace(/^\./, '');
}

function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment),
      '',
    );
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(`${e.field}|${e.message}`) && seen.add(`${e.field}|${e.message}`));
}
