// Run after the integration suite (npm test): the rights the chart gives the controller are
// exactly the ones its controllers used across the suite, as the API server's audit log recorded
// them (the suite's controllers all run as the chart's ServiceAccount, in-process and in-cluster).
// A right never used fails, as does a request refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CONTROLLER_REQUESTS_REPORT, type RequestKind } from '../support/audit-log.ts';
import { CONTROLLER_CHART, helm } from '../support/helm.ts';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

/** verb group resource, for every right the default installation binds to the controller's ServiceAccount. */
async function grantedRights(): Promise<string[]> {
  const rendered = await helm('template', 'twc', CONTROLLER_CHART, '--show-only', 'templates/rbac.yaml');
  const roles = parseAllDocuments(rendered)
    .map((document) => document.toJS() as { kind: string; metadata: { name: string }; rules?: Rule[] } | null)
    .filter((object) => object?.kind === 'ClusterRole' || object?.kind === 'Role')
    // The aggregated roles are for users, not bound to the controller.
    .filter((role) => !/-(edit|view)$/.test(role?.metadata.name ?? ''));
  const rights = roles.flatMap((role) =>
    (role?.rules ?? []).flatMap((rule) =>
      (rule.apiGroups ?? ['']).flatMap((group) =>
        (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => `${verb} ${group} ${resource}`)),
      ),
    ),
  );
  return [...new Set(rights)].sort();
}

test('the chart grants the controller exactly the rights its controllers used in the suite', async () => {
  const used = JSON.parse(readFileSync(CONTROLLER_REQUESTS_REPORT, 'utf8')) as RequestKind[];
  const usedRights = new Set(used.map((kind) => `${kind.verb} ${kind.group} ${kind.resource}`));
  const granted = await grantedRights();
  assert.deepEqual(
    used
      .filter((kind) => kind.refused > 0)
      .map((kind) => `${kind.verb} ${kind.group} ${kind.resource}: ${kind.refused} refused`),
    [],
    'requests refused for lack of a right',
  );
  assert.deepEqual(
    granted.filter((right) => !usedRights.has(right)),
    [],
    'rights granted that no request of the suite used',
  );
});
