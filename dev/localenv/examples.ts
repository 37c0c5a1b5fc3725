// What the manifests of examples/ need from the local environment: their connection's in-cluster
// address served, the Temporal namespaces they name created with the dev server, and a node for
// each nodeSelector they use, so that every example runs unchanged on `npm start`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { LocalNode } from '../node-agent/placement.ts';

export const EXAMPLES_DIR = path.join(import.meta.dirname, '../../examples');

/** The TemporalConnection name the examples refer to. */
export const EXAMPLE_CONNECTION = 'temporal';

/** The hostPort of the examples' connection, an in-cluster address (minimal.yaml); undefined when none defines it. */
export function exampleConnectionAddress(dir = EXAMPLES_DIR): string | undefined {
  const connection = exampleObjects(dir).find(
    (o) => o.kind === 'TemporalConnection' && o.metadata?.name === EXAMPLE_CONNECTION,
  );
  const hostPort = (connection?.spec as { hostPort?: unknown } | undefined)?.hostPort;
  return typeof hostPort === 'string' ? hostPort : undefined;
}

interface ExampleSpec {
  workerOptions?: { temporalNamespace?: unknown };
  template?: { spec?: { nodeSelector?: unknown } };
  pools?: { nodeSelector?: unknown }[];
}

/** Every spec.workerOptions.temporalNamespace of the worker deployments in `dir`, sorted, once each. */
export function exampleTemporalNamespaces(dir = EXAMPLES_DIR): string[] {
  const found = new Set<string>();
  for (const spec of exampleSpecs(dir)) {
    const namespace = spec.workerOptions?.temporalNamespace;
    if (typeof namespace === 'string') found.add(namespace);
  }
  return [...found].sort();
}

/** One node for each distinct nodeSelector of the examples' templates and pools, labelled to match it. */
export function exampleNodes(dir = EXAMPLES_DIR): LocalNode[] {
  const nodes = new Map<string, LocalNode>();
  for (const spec of exampleSpecs(dir)) {
    for (const selector of [spec.template?.spec?.nodeSelector, ...(spec.pools ?? []).map((p) => p.nodeSelector)]) {
      if (!selector || typeof selector !== 'object') continue;
      const labels = Object.fromEntries(Object.entries(selector).map(([key, value]) => [key, String(value)]));
      const name = Object.entries(labels)
        .sort()
        .flat()
        .join('-')
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, '-');
      nodes.set(name, { name, labels, taints: [] });
    }
  }
  return [...nodes.values()].sort((a, b) => a.name.localeCompare(b.name));
}

interface ExampleObject {
  kind?: unknown;
  metadata?: { name?: unknown };
  spec?: unknown;
}

function exampleObjects(dir: string): ExampleObject[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')))
    .flatMap((document) => {
      const object = document.toJS() as ExampleObject | null;
      return object && typeof object === 'object' ? [object] : [];
    });
}

function exampleSpecs(dir: string): ExampleSpec[] {
  return exampleObjects(dir).flatMap((o) =>
    o.kind === 'TemporalWorkerDeployment' && o.spec ? [o.spec as ExampleSpec] : [],
  );
}
