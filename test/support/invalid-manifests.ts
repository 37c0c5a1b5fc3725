// Manifests that admission must refuse, each with the text that the refusal must contain: the
// offending field. The integration test sends them to the real API server; the unit test to
// the controller's own validator.
import type { KindName } from '../../src/api/kinds.ts';

export interface InvalidManifest {
  title: string;
  kind: KindName;
  manifest: Record<string, unknown>;
  /** Must appear in the API server's message, and in the validator's `field: message`. */
  expect: string;
  /** For an update: the valid object that the manifest replaces. */
  before?: Record<string, unknown>;
  /** A second text the message must contain, beside the field: the offending value, when the field alone does not name it. */
  says?: string;
  /** Why the controller's validator does not see this case, when it does not. */
  apiServerOnly?: string;
}

type Json = Record<string, unknown>;

export function validWorkerDeployment(): Json {
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerDeployment',
    metadata: { name: 'orders' },
    spec: {
      replicas: 2,
      workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'default' },
      template: { spec: { containers: [{ name: 'worker', image: 'worker:1' }] } },
    },
  };
}

export function validConnection(): Json {
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalConnection',
    metadata: { name: 'temporal' },
    spec: { hostPort: 'temporal.example.com:7233' },
  };
}

export function validOwnedResource(): Json {
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: { name: 'orders-pdb' },
    spec: {
      workerRef: { name: 'orders' },
      object: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        spec: { minAvailable: 1, selector: { matchLabels: {} } },
      },
    },
  };
}

/** A copy of `base` with the value at a dotted path set (or removed, for `undefined`). */
function edit(base: Json, changes: Record<string, unknown>): Json {
  const copy = structuredClone(base);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    let target: Json = copy;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Json;
    const last = keys.at(-1) ?? '';
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  return copy;
}

const twd = (changes: Record<string, unknown>): Json => edit(validWorkerDeployment(), changes);
const conn = (changes: Record<string, unknown>): Json => edit(validConnection(), changes);
const twor = (changes: Record<string, unknown>): Json => edit(validOwnedResource(), changes);
const steps = (...ramps: [number, string][]): Json[] =>
  ramps.map(([rampPercentage, pauseDuration]) => ({ rampPercentage, pauseDuration }));
const progressive = (stepList: Json[]): Json => ({ strategy: 'Progressive', steps: stepList });
/** A Progressive rollout judged by Prometheus queries on endpoint `main`, with `analysis` over it. */
const metricAnalysis = (analysis: Json): Json =>
  twd({
    'spec.rollout': { ...progressive(steps([10, '1m'])), analysis: { prometheus: { name: 'main' }, ...analysis } },
  });

export const invalidManifests: InvalidManifest[] = [
  // TemporalWorkerDeployment: names
  {
    title: 'a name with a dot',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'metadata.name': 'orders.v2' }),
    expect: 'metadata.name',
  },
  {
    title: 'a name longer than 63 characters',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'metadata.name': 'w'.repeat(64) }),
    expect: 'metadata.name',
  },
  // spec
  { title: 'no spec', kind: 'TemporalWorkerDeployment', manifest: twd({ spec: undefined }), expect: 'spec' },
  {
    title: 'no template',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.template': undefined }),
    expect: 'spec.template',
  },
  {
    title: 'a template without containers',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.template.spec': {} }),
    expect: 'spec.template.spec.containers',
  },
  {
    title: 'an empty container list',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.template.spec.containers': [] }),
    expect: 'spec.template.spec.containers',
  },
  {
    title: 'a container without a name',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.template.spec.containers': [{ image: 'w:1' }] }),
    expect: 'spec.template.spec.containers[0].name',
  },
  {
    title: 'an API key in the env of a container, which the connection sets',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.template.spec.containers': [
        {
          name: 'worker',
          image: 'w:1',
          env: [
            { name: 'LOG_LEVEL', value: 'debug' },
            { name: 'TEMPORAL_API_KEY', valueFrom: { secretKeyRef: { name: 'key', key: 'api-key' } } },
          ],
        },
      ],
    }),
    expect: 'spec.template.spec.containers[0].env',
    says: 'container worker sets TEMPORAL_API_KEY',
  },
  {
    title: "a build ID in a second container's env, which the controller sets",
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.template.spec.containers': [
        { name: 'worker', image: 'w:1' },
        {
          name: 'sidecar',
          image: 's:1',
          env: [
            { name: 'TEMPORAL_ADDRESS', value: 'elsewhere:7233' },
            { name: 'WORKER_BUILD_ID', value: 'mine' },
          ],
        },
      ],
    }),
    expect: 'spec.template.spec.containers[1].env',
    says: 'container sidecar sets TEMPORAL_ADDRESS,',
  },
  {
    title: 'an env entry without a name',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.template.spec.containers': [{ name: 'worker', image: 'w:1', env: [{ value: 'x' }] }] }),
    expect: 'spec.template.spec.containers[0].env[0].name',
  },
  {
    title: 'negative replicas',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.replicas': -1 }),
    expect: 'spec.replicas',
  },
  {
    title: 'replicas as a word',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.replicas': 'three' }),
    expect: 'spec.replicas',
  },
  {
    title: 'negative minReadySeconds',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.minReadySeconds': -5 }),
    expect: 'spec.minReadySeconds',
  },
  {
    title: 'a zero progress deadline',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.progressDeadlineSeconds': 0 }),
    expect: 'spec.progressDeadlineSeconds',
  },
  // workerOptions
  {
    title: 'no workerOptions',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions': undefined }),
    expect: 'spec.workerOptions',
  },
  {
    title: 'no connectionRef',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.connectionRef': undefined }),
    expect: 'spec.workerOptions.connectionRef',
  },
  {
    title: 'a connection name that is not a DNS label',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.connectionRef.name': 'Temporal_Conn' }),
    expect: 'spec.workerOptions.connectionRef.name',
  },
  {
    title: 'a notification receiver without its Secret',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.notifications': [{ format: 'Slack' }] }),
    expect: 'spec.notifications[0].secretRef',
  },
  {
    title: 'a notification format that is not one',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.notifications': [{ secretRef: { name: 'hook' }, format: 'Teams' }] }),
    expect: 'spec.notifications[0].format',
  },
  {
    title: 'a rollout event kind that is not one',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.notifications': [{ secretRef: { name: 'hook' }, events: ['Promoted', 'Deployed'] }] }),
    expect: 'spec.notifications[0].events[1]',
  },
  {
    title: 'a connection of a kind that is not one',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.connectionRef.kind': 'Connection' }),
    expect: 'spec.workerOptions.connectionRef.kind',
  },
  {
    title: 'no Temporal namespace',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.temporalNamespace': undefined }),
    expect: 'spec.workerOptions.temporalNamespace',
  },
  {
    title: 'an empty Temporal namespace',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.temporalNamespace': '' }),
    expect: 'spec.workerOptions.temporalNamespace',
  },
  {
    title: 'a custom build ID of 64 characters',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.unsafeCustomBuildID': 'b'.repeat(64) }),
    expect: 'spec.workerOptions.unsafeCustomBuildID',
  },
  {
    title: 'a custom build ID with a space',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.unsafeCustomBuildID': 'build 1' }),
    expect: 'spec.workerOptions.unsafeCustomBuildID',
  },
  {
    title: 'a custom build ID starting with a dash',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.unsafeCustomBuildID': '-build' }),
    expect: 'spec.workerOptions.unsafeCustomBuildID',
  },
  {
    title: 'onConfigChange NewBuild with a custom build ID, which the configuration cannot change',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.workerOptions.unsafeCustomBuildID': 'stable',
      'spec.workerOptions.onConfigChange': 'NewBuild',
    }),
    expect: 'spec.workerOptions.onConfigChange',
    says: 'unsafeCustomBuildID',
  },
  {
    title: 'an onConfigChange of neither RollInPlace nor NewBuild',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.onConfigChange': 'Restart' }),
    expect: 'spec.workerOptions.onConfigChange',
  },
  {
    title: "seed 003's unadapted buildID field",
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.workerOptions.buildID': 'wf-a1b2c3d4' }),
    expect: 'spec.workerOptions.buildID',
    apiServerOnly:
      "unknown fields are refused by strict field validation (kubectl's default) and pruned otherwise; the controller never sees them",
  },
  // rollout
  {
    title: 'an unknown strategy',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Canary' } }),
    expect: 'spec.rollout.strategy',
  },
  {
    title: 'Progressive without steps',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Progressive' } }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'Progressive with an empty step list',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive([]) }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'Progressive with 21 steps',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': progressive(
        Array.from({ length: 21 }, (_, i) => ({ rampPercentage: i + 1, pauseDuration: '1m' })),
      ),
    }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'a ramp of 0%',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([0, '1m'])) }),
    expect: 'spec.rollout.steps[0].rampPercentage',
  },
  {
    title: 'a ramp of 100%',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([10, '1m'], [100, '1m'])) }),
    expect: 'spec.rollout.steps[1].rampPercentage',
  },
  {
    title: 'a decreasing ramp',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([50, '1m'], [20, '1m'])) }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'a repeated ramp',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([20, '1m'], [20, '1m'])) }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'a pause shorter than 30s',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([10, '10s'])) }),
    expect: 'spec.rollout.steps[0].pauseDuration',
  },
  {
    title: 'a pause that is not a duration',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([10, 'soon'])) }),
    expect: 'spec.rollout.steps[0].pauseDuration',
  },
  {
    title: 'a negative pause',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive(steps([10, '-5m'])) }),
    expect: 'spec.rollout.steps[0].pauseDuration',
  },
  {
    title: 'a step without a pause',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': progressive([{ rampPercentage: 10 }]) }),
    expect: 'spec.rollout.steps[0].pauseDuration',
  },
  {
    title: 'steps with AllAtOnce',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', steps: steps([10, '1m']) } }),
    expect: 'spec.rollout.steps',
  },
  {
    title: 'rollout and cutover together',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Manual' }, 'spec.cutover': { strategy: 'Manual' } }),
    expect: 'cutover',
  },
  {
    title: 'a deprecated cutover that is invalid too',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.cutover': { strategy: 'Progressive' } }),
    expect: 'spec.cutover.steps',
  },
  // gates
  {
    title: 'a gate without a workflow type',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', gate: {} } }),
    expect: 'spec.rollout.gate.workflowType',
  },
  {
    title: 'gate input and inputFrom together',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        strategy: 'AllAtOnce',
        gate: { workflowType: 'Check', input: { a: 1 }, inputFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      },
    }),
    expect: 'spec.rollout.gate',
  },
  {
    title: 'gate inputFrom naming both a ConfigMap and a Secret',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        strategy: 'AllAtOnce',
        gate: {
          workflowType: 'Check',
          inputFrom: { secretKeyRef: { name: 's', key: 'k' }, configMapKeyRef: { name: 'c', key: 'k' } },
        },
      },
    }),
    expect: 'spec.rollout.gate.inputFrom',
  },
  {
    title: 'gate inputFrom naming nothing',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', gate: { workflowType: 'Check', inputFrom: {} } } }),
    expect: 'spec.rollout.gate.inputFrom',
  },
  {
    title: 'a gate Secret reference without a key',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        strategy: 'AllAtOnce',
        gate: { workflowType: 'Check', inputFrom: { secretKeyRef: { name: 's' } } },
      },
    }),
    expect: 'spec.rollout.gate.inputFrom.secretKeyRef.key',
  },
  {
    title: 'a gate input that is a string',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', gate: { workflowType: 'Check', input: 'go' } } }),
    expect: 'spec.rollout.gate.input',
  },
  {
    title: 'a step gate input that is a list',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': progressive([
        { rampPercentage: 10, pauseDuration: '1m', gate: { workflowType: 'Check', input: [1, 2] } },
      ]),
    }),
    expect: 'spec.rollout.steps[0].gate.input',
  },
  // sunset
  {
    title: 'a scale-down delay in words',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { scaledownDelay: '1 hour' } }),
    expect: 'spec.sunset.scaledownDelay',
  },
  {
    title: 'a delete delay as a number',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { deleteDelay: 5 } }),
    expect: 'spec.sunset.deleteDelay',
  },
  {
    title: 'a pinned-workflow cancellation no later than its signal',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { pinnedWorkflows: { signalAfter: '1h', cancelAfter: '30m' } } }),
    expect: 'spec.sunset.pinnedWorkflows.cancelAfter',
    says: 'cancelAfter must be longer than signalAfter',
  },
  {
    title: 'a pinned-workflow termination before its cancellation',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { pinnedWorkflows: { cancelAfter: '2h', terminateAfter: '1h' } } }),
    expect: 'spec.sunset.pinnedWorkflows.terminateAfter',
    says: 'terminateAfter must be longer than cancelAfter',
  },
  {
    title: 'a pinned-workflow termination before its signal, without cancellation',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { pinnedWorkflows: { signalAfter: '1h', terminateAfter: '1h' } } }),
    expect: 'spec.sunset.pinnedWorkflows.terminateAfter',
    says: 'terminateAfter must be longer than signalAfter',
  },
  {
    title: 'an empty pinned-workflow signal name',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.sunset': { pinnedWorkflows: { signalAfter: '1h', signalName: '' } } }),
    expect: 'spec.sunset.pinnedWorkflows.signalName',
  },
  // canary analysis
  {
    title: 'an analysis with nothing to judge by',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { ...progressive(steps([10, '1m'])), analysis: { minSamples: 5 } } }),
    expect: 'spec.rollout.analysis',
    says: 'set maxFailureRate, maxFailureRateIncrease, metrics or more than one',
  },
  {
    title: 'metrics without an endpoint to query',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        ...progressive(steps([10, '1m'])),
        analysis: { metrics: [{ name: 'errors', query: 'sum(rate(errors[1m]))', max: 1 }] },
      },
    }),
    expect: 'spec.rollout.analysis.prometheus',
    says: 'metrics are queried on prometheus: set both or neither',
  },
  {
    title: 'a metric with no range',
    kind: 'TemporalWorkerDeployment',
    manifest: metricAnalysis({ metrics: [{ name: 'errors', query: 'sum(errors)' }] }),
    expect: 'spec.rollout.analysis.metrics[0]',
    says: 'set min, max or both',
  },
  {
    title: 'a metric whose min is above its max',
    kind: 'TemporalWorkerDeployment',
    manifest: metricAnalysis({ metrics: [{ name: 'errors', query: 'sum(errors)', min: 2, max: 1 }] }),
    expect: 'spec.rollout.analysis.metrics[0].min',
    says: 'min must not be above max',
  },
  {
    title: 'a metric query with a variable that does not exist',
    kind: 'TemporalWorkerDeployment',
    manifest: metricAnalysis({
      metrics: [{ name: 'errors', query: 'sum(errors{build="{{ .BuildID }}",pod="{{ .PodName }}"})', max: 1 }],
    }),
    expect: 'spec.rollout.analysis.metrics[0].query',
    says: 'query may use only {{ .BuildID }}',
  },
  {
    title: 'two metrics of one name',
    kind: 'TemporalWorkerDeployment',
    manifest: metricAnalysis({
      metrics: [
        { name: 'errors', query: 'sum(errors)', max: 1 },
        { name: 'errors', query: 'sum(failures)', max: 1 },
      ],
    }),
    expect: 'spec.rollout.analysis.metrics',
    says: 'each metric needs a name of its own',
  },
  {
    title: 'a Prometheus endpoint named by an address',
    kind: 'TemporalWorkerDeployment',
    manifest: metricAnalysis({
      prometheus: { name: 'http://10.0.0.1:9090' },
      metrics: [{ name: 'errors', query: 'sum(errors)', max: 1 }],
    }),
    expect: 'spec.rollout.analysis.prometheus.name',
  },
  {
    title: 'a failure rate above 1',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { ...progressive(steps([10, '1m'])), analysis: { maxFailureRate: 5 } } }),
    expect: 'spec.rollout.analysis.maxFailureRate',
  },
  {
    title: 'a negative failure rate increase',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': { ...progressive(steps([10, '1m'])), analysis: { maxFailureRateIncrease: -0.1 } },
    }),
    expect: 'spec.rollout.analysis.maxFailureRateIncrease',
  },
  {
    title: 'a relative analysis on zero samples',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': { ...progressive(steps([10, '1m'])), analysis: { maxFailureRateIncrease: 0.1, minSamples: 0 } },
    }),
    expect: 'spec.rollout.analysis.minSamples',
    says: 'minSamples must be at least 1 with maxFailureRateIncrease',
  },
  {
    title: 'a wait for samples that never waits',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        ...progressive(steps([10, '1m'])),
        analysis: { maxFailureRate: 0.05, tooFewSamples: 'Pass', maxWait: '5m' },
      },
    }),
    expect: 'spec.rollout.analysis.maxWait',
    says: 'maxWait is used only with tooFewSamples: Wait',
  },
  {
    title: 'a workflow type with a quote',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': {
        ...progressive(steps([10, '1m'])),
        analysis: { maxFailureRate: 0.05, workflowTypes: ["Charge' OR 1=1"] },
      },
    }),
    expect: 'spec.rollout.analysis.workflowTypes',
  },
  {
    title: 'an analysis of a Manual rollout',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Manual', analysis: { maxFailureRate: 0.05 } } }),
    expect: 'spec.rollout.analysis',
    says: 'the Manual strategy moves no traffic',
  },
  {
    title: 'a Manual rollout paused',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Manual', paused: true } }),
    expect: 'spec.rollout.paused',
    says: 'the Manual strategy moves no traffic',
  },
  {
    title: 'a Manual rollout aborted',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'Manual', abort: 'v1' } }),
    expect: 'spec.rollout.abort',
  },
  {
    title: 'one build promoted and aborted',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', promote: 'v1', abort: 'v1' } }),
    expect: 'spec.rollout.promote',
    says: 'a build is promoted or aborted, not both',
  },
  {
    title: 'a build to promote that no build ID can be',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', promote: 'v 1' } }),
    expect: 'spec.rollout.promote',
  },
  {
    title: 'an AllAtOnce analysis without a window',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.rollout': { strategy: 'AllAtOnce', analysis: { maxFailureRate: 0.05 } } }),
    expect: 'spec.rollout.analysis.window',
    says: 'an AllAtOnce analysis needs a window',
  },
  {
    title: 'an AllAtOnce analysis relative to the current build',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.rollout': { strategy: 'AllAtOnce', analysis: { window: '10m', maxFailureRateIncrease: 0.1 } },
    }),
    expect: 'spec.rollout.analysis.maxFailureRateIncrease',
    says: 'Progressive only',
  },
  // pools
  {
    title: 'two pools with one name',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.pools': [{ name: 'spot' }, { name: 'spot' }] }),
    expect: 'spec.pools',
  },
  {
    title: 'a pool name that is not a DNS label',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.pools': [{ name: 'Spot_Nodes' }] }),
    expect: 'spec.pools[0].name',
  },
  {
    title: 'a pool name of 21 characters',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.pools': [{ name: 'p'.repeat(21) }] }),
    expect: 'spec.pools[0].name',
  },
  {
    title: 'negative pool replicas',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.pools': [{ name: 'spot', replicas: -1 }] }),
    expect: 'spec.pools[0].replicas',
  },
  {
    title: 'a pool node selector with a number',
    kind: 'TemporalWorkerDeployment',
    manifest: twd({ 'spec.pools': [{ name: 'spot', nodeSelector: { zone: 1 } }] }),
    expect: 'spec.pools[0].nodeSelector',
  },
  {
    title: "a pool's template naming a container spec.template does not have",
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.pools': [{ name: 'gpu', template: { spec: { containers: [{ name: 'trainer', image: 't:1' }] } } }],
    }),
    expect: 'spec.pools',
    says: 'must name a container of spec.template',
  },
  {
    title: "a pool's template setting a variable the controller sets",
    kind: 'TemporalWorkerDeployment',
    manifest: twd({
      'spec.pools': [
        {
          name: 'gpu',
          template: { spec: { containers: [{ name: 'worker', env: [{ name: 'TEMPORAL_ADDRESS', value: 'x:1' }] }] } },
        },
      ],
    }),
    expect: 'spec.pools[0].template.spec.containers[0].env',
    says: 'container worker sets TEMPORAL_ADDRESS,',
  },
  // TemporalConnection
  {
    title: 'a host without a port',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.hostPort': 'temporal.example.com' }),
    expect: 'spec.hostPort',
  },
  {
    title: 'a host with a scheme',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.hostPort': 'https://temporal.example.com:7233' }),
    expect: 'spec.hostPort',
  },
  {
    title: 'no host',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.hostPort': undefined }),
    expect: 'spec.hostPort',
  },
  {
    title: 'mutual TLS and an API key together',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.mutualTLSSecretRef': { name: 'cert' }, 'spec.apiKeySecretRef': { name: 'key', key: 'k' } }),
    expect: 'mutualTLSSecretRef',
  },
  {
    title: 'an API key reference without a key',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.apiKeySecretRef': { name: 'key' } }),
    expect: 'spec.apiKeySecretRef.key',
  },
  {
    title: 'a mutual TLS reference without a name',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.mutualTLSSecretRef': {} }),
    expect: 'spec.mutualTLSSecretRef.name',
  },
  {
    title: 'a TLS server name with a space',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.tls': { serverName: 'temporal example' } }),
    expect: 'spec.tls.serverName',
  },
  {
    title: "workers' credentials of both kinds",
    kind: 'TemporalConnection',
    manifest: conn({
      'spec.workerAuth': { mutualTLSSecretRef: { name: 'cert' }, apiKeySecretRef: { name: 'key', key: 'k' } },
    }),
    expect: 'spec.workerAuth',
  },
  {
    title: "workers' credentials of neither kind",
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.workerAuth': {} }),
    expect: 'spec.workerAuth',
  },
  {
    title: 'a service-account token beside an API key',
    kind: 'TemporalConnection',
    manifest: conn({
      'spec.apiKeySecretRef': { name: 'key', key: 'k' },
      'spec.serviceAccountToken': { audience: 'temporal', serviceAccountName: 'temporal' },
    }),
    expect: 'spec',
    says: 'at most one of mutualTLSSecretRef, apiKeySecretRef, serviceAccountToken',
  },
  {
    title: "workers' token and certificate",
    kind: 'TemporalConnection',
    manifest: conn({
      'spec.workerAuth': { mutualTLSSecretRef: { name: 'cert' }, serviceAccountToken: { audience: 'temporal' } },
    }),
    expect: 'spec.workerAuth',
    says: 'exactly one of',
  },
  {
    title: 'a service-account token without an audience',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.serviceAccountToken': { audience: '', serviceAccountName: 'temporal' } }),
    expect: 'spec.serviceAccountToken.audience',
  },
  {
    title: 'a service-account token living less than ten minutes',
    kind: 'TemporalConnection',
    manifest: conn({
      'spec.serviceAccountToken': { audience: 'temporal', expirationSeconds: 60, serviceAccountName: 'temporal' },
    }),
    expect: 'spec.serviceAccountToken.expirationSeconds',
  },
  {
    title: "a namespaced connection's token without the ServiceAccount of its namespace to mint it for",
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.serviceAccountToken': { audience: 'temporal' } }),
    expect: 'spec.serviceAccountToken.serviceAccountName',
    says: "never the controller's",
  },
  {
    title: "a namespaced connection's token for the API server's own audience",
    kind: 'TemporalConnection',
    manifest: conn({
      'spec.serviceAccountToken': {
        audience: 'https://kubernetes.default.svc.cluster.local',
        serviceAccountName: 'temporal',
      },
    }),
    expect: 'spec.serviceAccountToken.audience',
    says: "one the cluster's API server accepts",
  },
  {
    title: 'a CA key with a slash',
    kind: 'TemporalConnection',
    manifest: conn({ 'spec.tls': { caCertSecretRef: { name: 'ca', key: 'certs/ca.crt' } } }),
    expect: 'spec.tls.caCertSecretRef.key',
  },
  // TemporalWorkerOwnedResource
  {
    title: 'no workerRef',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.workerRef': undefined }),
    expect: 'spec.workerRef',
  },
  {
    title: 'a workerRef without a name',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.workerRef': {} }),
    expect: 'spec.workerRef.name',
  },
  {
    title: 'an object without apiVersion',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.object.apiVersion': undefined }),
    expect: 'spec.object.apiVersion',
  },
  {
    title: 'an object without kind',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.object.kind': undefined }),
    expect: 'spec.object.kind',
  },
  {
    title: 'an object with a name',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.object.metadata': { name: 'mine' } }),
    expect: 'spec.object.metadata',
  },
  {
    title: 'an object with a namespace',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.object.metadata': { namespace: 'other' } }),
    expect: 'spec.object.metadata',
  },
  {
    title: 'no object',
    kind: 'TemporalWorkerOwnedResource',
    manifest: twor({ 'spec.object': undefined }),
    expect: 'spec.object',
  },
  {
    title: 'a changed workerRef',
    kind: 'TemporalWorkerOwnedResource',
    before: validOwnedResource(),
    manifest: twor({ 'spec.workerRef.name': 'billing' }),
    expect: 'spec.workerRef.name',
  },
];
