// The Helm charts, rendered by helm built from Go modules: `helm lint --strict` passes; the default
// values and a file that sets every value render as their golden files say
// (TWC_UPDATE_GOLDEN=1 writes them); a wrong value is refused at `helm template`, naming it; and
// the real API server accepts every object of the default rendering (a server-side dry run).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { KINDS } from '../../src/api/kinds.ts';
import { CRD_DIR } from '../../scripts/generate.ts';
import { kubernetesApi, testNamespace } from '../support/environment.ts';
import { holdExternalMetricsApi } from '../support/external-metrics-api.ts';
import { CONTROLLER_CHART, CRD_CHART, createRendered, helm } from '../support/helm.ts';

const ROOT = path.join(import.meta.dirname, '../..');
const CHART = CONTROLLER_CHART;
const FIXTURES = path.join(ROOT, 'test/fixtures/charts');

/** What `helm template` says when it refuses: its error, or '' when it rendered. */
async function refusal(...args: string[]): Promise<string> {
  try {
    await helm('template', 'twc', CHART, ...args);
    return '';
  } catch (error) {
    return (error as { stderr?: string }).stderr ?? String(error);
  }
}

function matchesGolden(rendered: string, file: string): void {
  const golden = path.join(FIXTURES, file);
  if (process.env.TWC_UPDATE_GOLDEN) writeFileSync(golden, rendered);
  assert.equal(
    rendered,
    readFileSync(golden, 'utf8'),
    `${file} is stale: run with TWC_UPDATE_GOLDEN=1 and read the diff`,
  );
}

test('helm lint --strict passes on both charts', async () => {
  const output = await helm('lint', '--strict', CHART, CRD_CHART);
  assert.match(output, /2 chart\(s\) linted, 0 chart\(s\) failed/);
});

test('values kept from a chart before leaderElection.renewPeriod (helm upgrade --reuse-values) leave that flag to its default', async () => {
  const rendered = await helm('template', 'twc', CHART, '--set', 'leaderElection.renewPeriod=null');
  assert.match(rendered, /- --leader-elect-renew-deadline=10s\n/);
  assert.doesNotMatch(rendered, /--leader-elect-renew-period/);
});

test('the default values and a file setting every value render as their golden files', async () => {
  matchesGolden(await helm('template', 'twc', CHART, '--namespace', 'temporal-system'), 'default.golden.yaml');
  matchesGolden(
    await helm(
      'template',
      'twc',
      CHART,
      '--namespace',
      'temporal-system',
      '-f',
      path.join(FIXTURES, 'full-values.yaml'),
    ),
    'full.golden.yaml',
  );
});

test("the controller's V8 heap limit is half its container's memory limit, and none where the limit is not in Mi or Gi", async () => {
  const nodeOptions = async (...args: string[]) =>
    /- name: NODE_OPTIONS\n\s+value: (.*)\n/.exec(await helm('template', 'twc', CHART, ...args))?.[1];
  assert.equal(await nodeOptions(), '--max-old-space-size=96', 'the default 192Mi');
  assert.equal(await nodeOptions('--set', 'resources.limits.memory=320Mi'), '--max-old-space-size=160');
  assert.equal(await nodeOptions('--set', 'resources.limits.memory=1Gi'), '--max-old-space-size=512');
  assert.equal(await nodeOptions('--set', 'resources.limits.memory=200M'), undefined);
});

test('the CRD chart installs the generated definitions as they are, kept on uninstall', async () => {
  const rendered = parseAllDocuments(await helm('template', 'crds', CRD_CHART)).map(
    (document) => document.toJS() as unknown,
  );
  // Helm renders the files in name order.
  const generated = Object.values(KINDS)
    .map((kind) => kind.plural)
    .sort()
    .map(
      (plural) =>
        parseAllDocuments(readFileSync(path.join(CRD_DIR, `${plural}.temporal.io.yaml`), 'utf8'))[0]?.toJS() as unknown,
    );
  assert.deepEqual(rendered, generated);
  for (const definition of rendered as { metadata: { annotations: Record<string, string> } }[])
    assert.equal(definition.metadata.annotations['helm.sh/resource-policy'], 'keep');
});

test('a wrong value is refused at helm template, naming it', async () => {
  assert.match(await refusal('--set', 'replicas=0'), /at '\/replicas': minimum: got 0, want 1/);
  assert.match(await refusal('--set', 'webhook.certificates=vault'), /at '\/webhook\/certificates'/);
  assert.match(await refusal('--set', 'controller.pollInterval=ten'), /at '\/controller\/pollInterval'/);
  assert.match(
    await refusal('--set', 'controller.pollIntervall=10s'),
    /additional properties 'pollIntervall' not allowed/,
  );
  assert.match(await refusal('--set', 'rbac.watchNamespaces={Orders}'), /at '\/rbac\/watchNamespaces\/0'/);
  assert.match(
    await refusal('--set', 'webhook.certificates=secret', '--set', 'webhook.secret.caBundle=x'),
    /webhook\.secret\.name: the kubernetes\.io\/tls Secret to serve/,
  );
  assert.match(
    await refusal('--set', 'webhook.certificates=secret', '--set', 'webhook.secret.name=tls'),
    /webhook\.secret\.caBundle: the PEM of the CA/,
  );
});

test("a Secret of the user's: mounted, served from its directory, its CA in the caBundle", async () => {
  const rendered = parseAllDocuments(
    await helm(
      'template',
      'twc',
      CHART,
      '--set',
      'webhook.certificates=secret',
      '--set',
      'webhook.secret.name=platform-tls',
      '--set',
      'webhook.secret.caBundle=PEM',
    ),
  ).map((document) => document.toJS() as Record<string, never>);
  const deployment = rendered.find((object) => object.kind === 'Deployment') as unknown as {
    spec: { template: { spec: { containers: { args: string[] }[]; volumes: { secret?: { secretName: string } }[] } } };
  };
  const { containers, volumes } = deployment.spec.template.spec;
  assert.ok(containers[0]?.args.includes('--webhook-certs=cert-dir'));
  assert.ok(volumes.some((volume) => volume.secret?.secretName === 'platform-tls'));
  const configuration = rendered.find((object) => object.kind === 'ValidatingWebhookConfiguration') as unknown as {
    webhooks: { clientConfig: { caBundle: string } }[];
  };
  assert.equal(configuration.webhooks[0]?.clientConfig.caBundle, Buffer.from('PEM').toString('base64'));
  assert.ok(!rendered.some((object) => object.kind === 'Role' && JSON.stringify(object).includes('"secrets"')));
});

test('the real API server accepts every object of the default rendering (server-side dry run)', async (t) => {
  const namespace = await testNamespace(t, 'chart');
  // A release of its own: the suite's controllers run with the RBAC of release `twc`.
  const rendered = await helm('template', 'dry-run', CHART, '--namespace', namespace);
  // Its APIService may be created only while no test holds the name.
  const endTurn = await holdExternalMetricsApi();
  const objects = await createRendered(kubernetesApi(t), rendered, namespace, { dryRun: 'All' }).finally(endTurn);
  assert.ok(objects.length >= 10, `${objects.length} objects`);
});
