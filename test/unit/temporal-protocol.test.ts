// The controller's cut of Temporal's protobuf descriptor (src/temporal/protocol.json) against the
// SDK's whole root: current, and losing no field of any message its RPCs carry either way.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import type protobuf from 'protobufjs/light.js';
import { jsonPayload } from '../../src/temporal/gate-workflows.ts';
import { protocolDescriptor } from '../../src/temporal/protocol-descriptor.ts';
import { PROTOCOL_FILE, WORKFLOW_SERVICE, WORKFLOW_SERVICE_METHODS } from '../../src/temporal/protocol-scope.ts';
import { enums, messages, workflowService } from '../../src/temporal/protocol.ts';

const sdk = createRequire(import.meta.url)('@temporalio/proto/protos/json-module.js') as protobuf.Root;
const sdkService = sdk.lookupService(WORKFLOW_SERVICE);

test('src/temporal/protocol.json is what `npm run generate` writes', () => {
  assert.equal(
    readFileSync(PROTOCOL_FILE, 'utf8'),
    protocolDescriptor(),
    'protocol.json is stale: run `npm run generate`',
  );
});

/**
 * A message of `type` with every field set (a nested message down to `depth`) but for oneofs, where
 * it sets the member numbered `variant` (modulo their count): variants 0 to the largest oneof's
 * size set every field of every message at least once.
 */
function everyField(type: protobuf.Type, variant: number, depth = 3): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const oneof = field.partOf?.fieldsArray;
    if (oneof && oneof[variant % oneof.length] !== field) continue;
    const resolved = field.resolve().resolvedType;
    const one = (): unknown => {
      if (resolved && 'fieldsArray' in resolved) return depth > 0 ? everyField(resolved, variant, depth - 1) : {};
      if (resolved) return Math.max(...Object.values(resolved.values));
      if (field.type === 'string') return `${field.name}-value`;
      if (field.type === 'bool') return true;
      if (field.type === 'bytes') return Buffer.from(field.name);
      return field.type === 'double' || field.type === 'float' ? 0.5 : 7;
    };
    if (field.map) value[field.name] = { key: one() };
    else value[field.name] = field.repeated ? [one()] : one();
  }
  return value;
}

/** How many variants of everyField it takes to set every member of the largest oneof `type` reaches. */
function variants(type: protobuf.Type, seen = new Set<protobuf.Type>()): number {
  if (seen.has(type)) return 1;
  seen.add(type);
  let most = Math.max(1, ...type.oneofsArray.map((o) => o.fieldsArray.length));
  for (const field of type.fieldsArray) {
    const resolved = field.resolve().resolvedType;
    if (resolved && 'fieldsArray' in resolved) most = Math.max(most, variants(resolved, seen));
  }
  return most;
}

/** The encoded message as the SDK reads it, as JSON. */
function asTheSdkReads(typeName: string, bytes: Uint8Array): unknown {
  return sdk.lookupType(typeName).decode(bytes).toJSON();
}

for (const name of WORKFLOW_SERVICE_METHODS) {
  const method = sdkService.methods[name.charAt(0).toUpperCase() + name.slice(1)]!.resolve() as protobuf.Method;
  const requestType = method.resolvedRequestType!;
  const responseType = method.resolvedResponseType!;

  test(`${name}: the request is encoded and the answer decoded field for field as by the SDK`, async () => {
    for (let variant = 0; variant < Math.max(variants(requestType), variants(responseType)); variant++) {
      const response = responseType.encode(responseType.fromObject(everyField(responseType, variant))).finish();
      let sent: Uint8Array | undefined;
      const service = workflowService((_method, request, callback) => {
        sent = request;
        callback(null, response);
      });
      const request = everyField(requestType, variant);
      const answer = await (service[name] as (r: unknown) => Promise<{ toJSON(): unknown }>)(request);
      assert.deepEqual(
        asTheSdkReads(requestType.fullName, sent!),
        requestType.fromObject(request).toJSON(),
        `the request as sent, variant ${variant}`,
      );
      assert.deepEqual(
        answer.toJSON(),
        asTheSdkReads(responseType.fullName, response),
        `the answer as read, variant ${variant}`,
      );
    }
  });
}

test("a refusal's details are decoded as by the SDK", () => {
  for (const [ours, name] of [
    [messages.Status, 'google.rpc.Status'],
    [messages.ResourceExhaustedFailure, 'temporal.api.errordetails.v1.ResourceExhaustedFailure'],
  ] as const) {
    const type = sdk.lookupType(name);
    const bytes = type.encode(type.fromObject(everyField(type, 0))).finish();
    assert.deepEqual(ours.decode(bytes).toJSON(), asTheSdkReads(name, bytes), name);
  }
});

test("the enums the controller names have the SDK's values", () => {
  for (const [name, values] of Object.entries(enums)) {
    const full =
      name === 'PinnedOverrideBehavior'
        ? `temporal.api.workflow.v1.VersioningOverride.${name}`
        : `temporal.api.enums.v1.${name}`;
    assert.deepEqual({ ...values }, { ...sdk.lookupEnum(full).values }, name);
  }
});

test("a gate's input is the payload the SDK's default converter makes", () => {
  for (const input of [{ minimum: 3, region: 'eu' }, 'text', 42, [1, 'two'], null, true]) {
    assert.deepEqual(jsonPayload(input), defaultPayloadConverter.toPayload(input), JSON.stringify(input));
  }
});
