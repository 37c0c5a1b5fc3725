// Two values are the same JSON when JSON.stringify would write them alike, key order aside.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import canonicalize from 'canonicalize';
import { sameJson } from '../../src/domain/same-json.ts';

test('key order does not matter; values, lengths and kinds do', () => {
  assert.ok(sameJson({ a: 1, b: { c: [1, 'x'] } }, { b: { c: [1, 'x'] }, a: 1 }));
  assert.ok(!sameJson({ a: 1 }, { a: 2 }));
  assert.ok(!sameJson({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!sameJson({ a: 1, b: 2 }, { a: 1 }));
  assert.ok(!sameJson([1, 2], [1, 2, 3]));
  assert.ok(!sameJson([1, 2], { 0: 1, 1: 2 }));
  assert.ok(!sameJson({ a: '1' }, { a: 1 }));
  assert.ok(!sameJson({ a: null }, { a: {} }));
  assert.ok(!sameJson({ a: { b: 1 } }, { c: { b: 1 } }));
});

test('what JSON leaves out or converts is compared as JSON writes it', () => {
  assert.ok(sameJson({ a: 1, gone: undefined }, { a: 1 }), 'an undefined property is not written');
  assert.ok(sameJson([undefined], [null]), 'an undefined item is written as null');
  const at = new Date('2026-11-26T12:00:00Z');
  assert.ok(sameJson({ at }, { at: '2026-11-26T12:00:00.000Z' }), 'a Date is written as its ISO string');
  assert.ok(!sameJson({ at }, { at: '2026-11-26T12:00:01.000Z' }));
});

test('it agrees with comparing canonical JSON on random values', () => {
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 2 ? 4 : 6));
    if (kind === 0) return Math.floor(next() * 3);
    if (kind === 1) return ['a', 'b', ''][Math.floor(next() * 3)];
    if (kind === 2) return next() < 0.5 ? null : undefined;
    if (kind === 3) return next() < 0.5;
    if (kind === 4) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (const k of ['x', 'y', 'z']) if (next() < 0.6) o[k] = value(depth + 1);
    return o;
  };
  let equal = 0;
  for (let i = 0; i < 5000; i++) {
    const a = value(0);
    const b = next() < 0.5 ? structuredClone(a) : value(0);
    const expected = canonicalize(a) === canonicalize(b);
    if (expected) equal++;
    assert.equal(sameJson(a, b), expected, `${canonicalize(a)} vs ${canonicalize(b)}`);
  }
  assert.ok(equal > 1000, 'both answers were tried');
});
