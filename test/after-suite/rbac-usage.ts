// Run after the integration suite (npm test): the rights the chart gives the controller are
// exactly the ones its controllers used across the suite, as the API server's audit log recorded
// them (the suite's controllers all run as the chart's ServiceAccount, in-process and in-cluster).
// A right never used fails, as does a request the authorizer refused; the only rights no request
// uses are the ones the API server checks inside another request (CHECKED_INSIDE_REQUESTS).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CONTROLLER_REQUESTS_REPORT, type RequestKind } from '../support/audit-log.ts';
import { CONTROLLER_CHART, helm } from '../support/helm.ts';

/**
 * Checked by the API server inside other requests, never requested, and each needed (a suite run
 * without it fails): where OwnerReferencesPermissionEnforcement is on (as in the local
 * environment), an owner reference that blocks its owner's deletion needs the owner's
 * finalizers, and setting owner references on an object needs the right to delete it (the
 * controller adopts owned resources, and the leader's EndpointSlice is owned by its Service); an
 * apply that creates its object needs `create`.
 */
const CHECKED_INSIDE_REQUESTS = [
  'update temporal.io temporalworkerdeployments/finalizers',
  'update apps deployments/finalizers',
  'delete temporal.io temporalworkerownedresources',
  'delete discovery.k8s.io endpointslices',
  // The copies of a cluster connection's Secrets, applied.
  'create  secrets',
];

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

/** `verb group resource` of every right the chart's roles bound to the controller grant. */
async function rightsOf(): Promise<{
  key: (verb: string, group: string, resource: string) => string;
  granted: string[];
}> {
  const key = (verb: string, group: string, resource: string) => `${verb} ${group} ${resource}`;
  const rendered = await helm('template', 'twc', CONTROLLER_CHART, '--show-only', 'templates/rbac.yaml');
  const roles = parseAllDocuments(rendered)
    .map((document) => document.toJS() as { kind: string; metadata: { name: string }; rules?: Rule[] } | null)
    .filter((object) => object?.kind === 'ClusterRole' || object?.kind === 'Role')
    // The aggregated roles are for users, not bound to the controller.
    .filter((role) => !/-(edit|view)$/.test(role?.metadata.name ?? ''));
  const granted = roles.flatMap((role) =>
    (role?.rules ?? []).flatMap((rule) =>
      (rule.apiGroups ?? ['']).flatMap((group) =>
        (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => key(verb, group, resource))),
      ),
    ),
  );
  return { key, granted: [...new Set(granted)].sort() };
}

test('the chart grants the controller exactly the rights its controllers used in the suite', async () => {
  const used = JSON.parse(readFileSync(CONTROLLER_REQUESTS_REPORT, 'utf8')) as RequestKind[];
  const { key, granted } = await rightsOf();
  const usedRights = new Set(used.map((kind) => key(kind.verb, kind.group, kind.resource)));
  assert.deepEqual(
    used
      .filter((kind) => kind.refused > 0)
      .map((kind) => `${kind.verb} ${kind.group} ${kind.resource}: ${kind.refused} refused`),
    [],
    'requests the authorizer refused',
  );
  assert.deepEqual(
    granted.filter((right) => !usedRights.has(right) && !CHECKED_INSIDE_REQUESTS.includes(right)),
    [],
    'rights granted that no request of the suite used',
  );
  for (const right of CHECKED_INSIDE_REQUESTS) assert.ok(granted.includes(right), `${right} is still granted`);
});
