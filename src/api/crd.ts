// Turns the TypeBox schemas into CustomResourceDefinitions: structural OpenAPI v3 with the
// Kubernetes extensions, the status subresource and printer columns.
import type { TSchema } from '@sinclair/typebox';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { GROUP, KINDS, type KindDefinition, VERSION } from './kinds.ts';

/** Keywords that mean the same in TypeBox's JSON Schema and in a CRD's OpenAPI. */
const KEPT = [
  'description',
  'default',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'format',
  'minItems',
  'maxItems',
];

export function openApi(schema: TSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const literals = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown);
  if (schema['x-kubernetes-int-or-string'] === true) {
    // The one union a structural schema allows, in the one form it allows (no rules in either
    // branch): the controller's own validation checks the percentage.
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  } else if (literals?.every((v) => typeof v === 'string')) {
    out.type = 'string';
    out.enum = literals;
  } else if (schema.patternProperties) {
    out.type = 'object';
    const values = Object.values(schema.patternProperties as Record<string, TSchema>)[0];
    // A map of anything is kept whole by x-kubernetes-preserve-unknown-fields instead.
    if (values && values.type !== undefined) out.additionalProperties = openApi(values);
  } else if (schema.type === 'object') {
    out.type = 'object';
    const properties = (schema.properties ?? {}) as Record<string, TSchema>;
    if (Object.keys(properties).length > 0)
      out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, openApi(v)]));
    if (Array.isArray(schema.required) && schema.required.length > 0) out.required = schema.required;
  } else if (schema.type === 'array') {
    out.type = 'array';
    out.items = openApi(schema.items as TSchema);
  } else if (typeof schema.type === 'string') {
    out.type = schema.type;
  } else {
    throw new Error(`no OpenAPI form for schema ${JSON.stringify(schema)}`);
  }
  for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];
  for (const [key, value] of Object.entries(schema)) if (key.startsWith('x-kubernetes-')) out[key] = value;
  return out;
}

export function customResourceDefinition(definition: KindDefinition): V1CustomResourceDefinition {
  const root = openApi(definition.schema);
  const properties = root.properties as Record<string, unknown>;
  // The API server owns apiVersion, kind and metadata; a CRD may only say they are there.
  properties.apiVersion = { type: 'string', description: 'APIVersion of the object.' };
  properties.kind = { type: 'string', description: 'Kind of the object.' };
  properties.metadata = { type: 'object' };
  root.required = ['spec'];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    // Uninstalling the chart keeps them, and so every object of them.
    metadata: { name: `${definition.plural}.${GROUP}`, annotations: { 'helm.sh/resource-policy': 'keep' } },
    spec: {
      group: GROUP,
      scope: definition.scope ?? 'Namespaced',
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular: definition.singular,
        shortNames: definition.shortNames,
        categories: ['temporal'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: root },
          subresources: { status: {} },
          additionalPrinterColumns: definition.printerColumns,
        },
      ],
    },
  };
}

export function allCustomResourceDefinitions(): V1CustomResourceDefinition[] {
  return Object.values(KINDS).map(customResourceDefinition);
}
