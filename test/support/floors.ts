// The floors of src/ (docs/architecture.md, "Layers"): each room stands on one, and a file imports
// only its own room and the rooms of lower floors, so every import runs down. Two rooms of one
// floor do not import each other. The one table that eslint.config.js (no-restricted-imports, per
// room) and test/unit/layers.test.ts (every import, type-only and dynamic ones too, and no cycle
// between files) both read.

export const FLOORS: Readonly<Record<string, number>> = {
  api: 1,
  domain: 2,
  status: 3,
  runtime: 3,
  planner: 4,
  k8s: 4,
  temporal: 5,
  prometheus: 5,
  webhook: 5,
  controller: 6,
  'external-metrics': 6,
  cli: 7,
};

/** The rooms that decide on plain data: a library is imported for its types only. */
export const PURE_ROOMS: readonly string[] = ['domain', 'status', 'planner'];
