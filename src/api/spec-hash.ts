// What the controller remembers is keyed by what it means: a gate's pass by the gate's own spec, a
// ladder step's batch by that step's own spec, so an unrelated edit (a pause, a replica count)
// changes neither. Hashes of the RFC 8785 canonical JSON, so key order and our releases do not
// matter, only content.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';

/** SHA-256 (hex) of the canonical JSON of a value. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256')
    .update(canonicalize(value) ?? '')
    .digest('hex');
}

/** A short key for a piece of spec: 10 hex characters of its canonical hash. */
export function specHash(value: unknown): string {
  return canonicalHash(value).slice(0, 10);
}
