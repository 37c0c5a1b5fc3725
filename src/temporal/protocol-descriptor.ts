// What `npm run generate` writes to src/temporal/protocol.json: the part of the SDK's protobuf root
// that the controller's calls reach. Only the generator and its drift test load the whole root.
import { createRequire } from 'node:module';
import type protobuf from 'protobufjs/light.js';
import { DETAIL_MESSAGES, WORKFLOW_SERVICE, WORKFLOW_SERVICE_METHODS } from './protocol-scope.ts';

type Reflected = protobuf.Type | protobuf.Enum;

/** The descriptor as a file: the service with only our methods, and every message and enum they reach. */
export function protocolDescriptor(): string {
  const full = createRequire(import.meta.url)('@temporalio/proto/protos/json-module.js') as protobuf.Root;
  const service = full.lookupService(WORKFLOW_SERVICE);
  const methods = WORKFLOW_SERVICE_METHODS.map((name) => {
    const method = service.methods[name.charAt(0).toUpperCase() + name.slice(1)];
    if (!method) throw new Error(`${WORKFLOW_SERVICE} has no method ${name}`);
    method.resolve();
    return method;
  });
  const kept = reachable([
    ...methods.flatMap((m) => [m.resolvedRequestType, m.resolvedResponseType]),
    ...DETAIL_MESSAGES.map((name) => full.lookupType(name)),
  ]);
  const descriptor: protobuf.INamespace = {};
  // A nested type is written with its parent (toJSON includes it), so only the outermost are placed.
  for (const type of [...kept].sort(byName)) {
    if (isType(type.parent)) continue;
    namespaceOf(descriptor, type.parent).nested![type.name] = type.toJSON();
  }
  namespaceOf(descriptor, service.parent).nested![service.name] = {
    methods: Object.fromEntries(
      methods.map((m) => [m.name, { requestType: m.requestType, responseType: m.responseType }]),
    ),
  };
  return `${JSON.stringify(descriptor)}\n`;
}

/** The types `from` reach through their fields, with the types that nest them or that they nest (written together). */
function reachable(from: (Reflected | null | undefined)[]): Set<Reflected> {
  const kept = new Set<Reflected>();
  const pending = from.filter((t): t is Reflected => t != null);
  for (let type = pending.pop(); type; type = pending.pop()) {
    if (kept.has(type)) continue;
    kept.add(type);
    if (isType(type.parent)) pending.push(type.parent);
    if (!isType(type)) continue;
    for (const field of type.fieldsArray) {
      const resolved = field.resolve().resolvedType;
      if (resolved) pending.push(resolved);
    }
    for (const nested of type.nestedArray) if (isType(nested) || isEnum(nested)) pending.push(nested);
  }
  return kept;
}

/** The JSON namespace at the path of `namespace`, made as needed. */
function namespaceOf(descriptor: protobuf.INamespace, namespace: protobuf.Namespace | null): protobuf.INamespace {
  const path = namespace?.fullName.split('.').filter(Boolean) ?? [];
  let at = descriptor;
  for (const part of path) at = (at.nested ??= {})[part] ??= {};
  at.nested ??= {};
  return at;
}

function isType(value: unknown): value is protobuf.Type {
  return (value as { constructor?: { className?: string } } | null)?.constructor?.className === 'Type';
}

function isEnum(value: unknown): value is protobuf.Enum {
  return (value as { constructor?: { className?: string } } | null)?.constructor?.className === 'Enum';
}

function byName(a: Reflected, b: Reflected): number {
  return a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0;
}
