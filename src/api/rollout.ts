// How traffic moves to a new build (spec.rollout of a TemporalWorkerDeployment): the strategy, the
// steps of a Progressive rollout, the gate workflows before traffic moves, and canary analysis.
import { type Static, Type } from '@sinclair/typebox';
import { ANALYSIS_DEFAULTS, DEFAULT_STRATEGY } from './defaults.ts';
import { duration, durationSeconds, freeform, keyRef, withRules } from './schema.ts';
import { PLACEHOLDER_CEL, QUERY_VARIABLES, unknownPlaceholders } from './metric-query.ts';

/** The shortest pause of a Progressive step: at least one metrics scrape (15-30s) must land in it for anyone to judge the step. */
export const MIN_PAUSE = '30s';
export const MAX_STEPS = 20;

const gate = withRules(
  Type.Object(
    {
      workflowType: Type.String({
        description:
          'Workflow type started on each workflow task queue of the new build, pinned to it; traffic moves only after every run completed.',
        minLength: 1,
      }),
      input: Type.Optional(freeform("JSON object passed as the workflow's first argument.")),
      inputFrom: Type.Optional(
        withRules(
          Type.Object(
            {
              configMapKeyRef: Type.Optional(keyRef('ConfigMap')),
              secretKeyRef: Type.Optional(keyRef('Secret')),
            },
            { description: "Reads the JSON input from a ConfigMap or Secret key (a Secret's value is never logged)." },
          ),
          {
            cel: 'has(self.configMapKeyRef) != has(self.secretKeyRef)',
            message: 'set exactly one of configMapKeyRef or secretKeyRef',
            check: (self) => (self.configMapKeyRef === undefined) !== (self.secretKeyRef === undefined),
          },
        ),
      ),
    },
    { description: 'A gate workflow that must pass before traffic moves.' },
  ),
  {
    cel: '!(has(self.input) && has(self.inputFrom))',
    message: 'set input or inputFrom, not both',
    check: (self) => !(self.input !== undefined && self.inputFrom !== undefined),
  },
);

const step = Type.Object(
  {
    rampPercentage: Type.Integer({
      description: 'Percentage of new workflow executions routed to the new build during this step.',
      minimum: 1,
      maximum: 99,
    }),
    pauseDuration: withRules(
      duration(`How long the step lasts, counted from the time Temporal applied its ramp; at least ${MIN_PAUSE}.`),
      {
        cel: `duration(self) >= duration('${MIN_PAUSE}')`,
        message: `pauseDuration must be at least ${MIN_PAUSE}`,
        check: (self) => durationSeconds(self) >= durationSeconds(MIN_PAUSE),
      },
    ),
    gate: Type.Optional(gate),
  },
  { description: 'One step of a Progressive rollout.' },
);

const rate = (description: string) => Type.Number({ description, minimum: 0, maximum: 1 });

export const MAX_ANALYSIS_METRICS = 10;

const prometheus = Type.Object(
  {
    name: Type.String({
      description:
        "One of the Prometheus-compatible endpoints the controller's administrator allows (--analysis-prometheus, chart value controller.analysisPrometheus): the address is theirs, never the spec's.",
      minLength: 1,
      maxLength: 63,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    }),
    bearerTokenSecretRef: Type.Optional(
      Type.Object(keyRef('Secret').properties, {
        description:
          "The bearer token sent with every query, from a Secret of the worker deployment's namespace (the tenant's own credentials: the controller never sends one of its own). Required by an endpoint the administrator marks for tenant credentials (--analysis-prometheus-tenant-auth).",
      }),
    ),
  },
  { description: 'Where spec.rollout.analysis.metrics are queried.' },
);

const metric = withRules(
  Type.Object(
    {
      name: Type.String({
        description: 'Names the metric in the status, events and messages.',
        minLength: 1,
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      }),
      query: Type.String({
        description: `A PromQL instant query whose answer is one number: a scalar or a vector of one series (aggregate with sum() or the like); no series, or NaN, is no sample (see tooFewSamples). It may use ${QUERY_VARIABLES.map((v) => `{{ .${v} }}`).join(', ')}: the ramping build's ID, its Temporal worker deployment's name, the Kubernetes namespace, and the time since the step's ramp as a duration (rate(x[{{ .Window }}])).`,
        minLength: 1,
        maxLength: 2000,
      }),
      min: Type.Optional(Type.Number({ description: 'The lowest answer that passes.' })),
      max: Type.Optional(Type.Number({ description: 'The highest answer that passes.' })),
    },
    {
      description:
        "A query judged at every look during the window: an answer out of range fails the step at once; every answer in range at the window's end passes it.",
    },
  ),
  {
    cel: 'has(self.min) || has(self.max)',
    message: 'set min, max or both: there is nothing to judge the answer by',
    check: (self) => self.min !== undefined || self.max !== undefined,
  },
  {
    cel: '!has(self.min) || !has(self.max) || self.min <= self.max',
    message: 'min must not be above max',
    fieldPath: '.min',
    check: (self) => self.min === undefined || self.max === undefined || self.min <= self.max,
  },
  {
    cel: PLACEHOLDER_CEL,
    message: `query may use only ${QUERY_VARIABLES.map((v) => `{{ .${v} }}`).join(', ')}`,
    fieldPath: '.query',
    check: (self) => unknownPlaceholders(self.query).length === 0,
  },
);

const analysis = withRules(
  Type.Object(
    {
      window: Type.Optional(
        duration(
          "How long each step's workflows are judged, counted from the step's ramp; default: the step's pauseDuration. A step ends when both are over. With AllAtOnce, required: how long the promoted build is judged, counted from its promotion.",
        ),
      ),
      minSamples: Type.Optional(
        Type.Integer({
          description: 'Workflows the ramping build must have closed in the window before any verdict.',
          minimum: 0,
          maximum: 1_000_000,
          default: ANALYSIS_DEFAULTS.minSamples,
        }),
      ),
      maxFailureRate: Type.Optional(
        rate('The highest share of closed workflows that may have failed, timed out or been terminated (0 to 1).'),
      ),
      maxFailureRateIncrease: Type.Optional(
        rate("The most the ramping build's failure rate may exceed the current build's over the same window (0 to 1)."),
      ),
      workflowTypes: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 1000, pattern: "^[^'\\\\]+$" }), {
          description: 'Count only workflows of these types; default: every type.',
          maxItems: 50,
        }),
      ),
      tooFewSamples: Type.Optional(
        Type.Union([Type.Literal('Wait'), Type.Literal('Pass'), Type.Literal('Fail')], {
          description: "Fewer than minSamples by the window's end: Wait (up to maxWait more, then fail), Pass or Fail.",
          default: ANALYSIS_DEFAULTS.tooFewSamples,
        }),
      ),
      maxWait: Type.Optional(
        duration(`How long tooFewSamples: Wait waits past the window; default ${ANALYSIS_DEFAULTS.maxWait}.`),
      ),
      prometheus: Type.Optional(prometheus),
      metrics: Type.Optional(
        withRules(
          Type.Array(metric, {
            description:
              "Prometheus queries judged beside (or instead of) the failure rate, each against its min and max; needs prometheus. No sample by the window's end is judged as tooFewSamples says.",
            minItems: 1,
            maxItems: MAX_ANALYSIS_METRICS,
          }),
          {
            cel: 'self.all(m, self.exists_one(n, n.name == m.name))',
            message: 'each metric needs a name of its own',
            check: (self) => new Set(self.map((m) => m.name)).size === self.length,
          },
        ),
      ),
      onFailure: Type.Optional(
        Type.Union([Type.Literal('Abort'), Type.Literal('Pause')], {
          description:
            "Abort: the ramp is removed, as when a step's gate fails; after an AllAtOnce promotion, the build current before is current again. Pause: the ramp holds at its step, the promoted build stays current. Either way the failure holds for that build whatever else of the spec changes, until a new template or spec.rollout.promote naming the build.",
          default: ANALYSIS_DEFAULTS.onFailure,
        }),
      ),
    },
    {
      description:
        "Judges each step of a Progressive rollout, or the time after an AllAtOnce promotion, by the workflows the new build closed (its failure rate, absolute or, Progressive, against the current build's) and by Prometheus queries.",
    },
  ),
  {
    cel: 'has(self.maxFailureRate) || has(self.maxFailureRateIncrease) || has(self.metrics)',
    message: 'set maxFailureRate, maxFailureRateIncrease, metrics or more than one: there is nothing to judge by',
    check: (self) =>
      self.maxFailureRate !== undefined || self.maxFailureRateIncrease !== undefined || self.metrics !== undefined,
  },
  {
    cel: 'has(self.metrics) == has(self.prometheus)',
    message: 'metrics are queried on prometheus: set both or neither',
    fieldPath: '.prometheus',
    check: (self) => (self.metrics === undefined) === (self.prometheus === undefined),
  },
  {
    cel: '!has(self.maxFailureRateIncrease) || !has(self.minSamples) || self.minSamples > 0',
    message: 'minSamples must be at least 1 with maxFailureRateIncrease: a rate of no workflows compares with nothing',
    fieldPath: '.minSamples',
    check: (self) => self.maxFailureRateIncrease === undefined || self.minSamples === undefined || self.minSamples > 0,
  },
  {
    cel: "!has(self.maxWait) || !has(self.tooFewSamples) || self.tooFewSamples == 'Wait'",
    message: 'maxWait is used only with tooFewSamples: Wait',
    fieldPath: '.maxWait',
    check: (self) => self.maxWait === undefined || self.tooFewSamples === undefined || self.tooFewSamples === 'Wait',
  },
);

/** A build ID, as the status names it. */
export const buildIdRef = (description: string) =>
  Type.String({ description, pattern: '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$', maxLength: 255 });

export function rolloutSchema(description: string) {
  return withRules(
    Type.Object(
      {
        strategy: Type.Union([Type.Literal('Manual'), Type.Literal('AllAtOnce'), Type.Literal('Progressive')], {
          description:
            'Manual: the controller never changes routing. AllAtOnce: the new build becomes current once healthy. Progressive: ramps through steps, then becomes current.',
          default: DEFAULT_STRATEGY,
        }),
        steps: Type.Optional(
          Type.Array(step, {
            description: 'Progressive steps, ramp strictly increasing; the build becomes current after the last.',
            minItems: 1,
            maxItems: MAX_STEPS,
          }),
        ),
        gate: Type.Optional(gate),
        analysis: Type.Optional(analysis),
        paused: Type.Optional(
          Type.Boolean({
            description:
              'Holds the rollout where it is (twc pause): no routing change moves new workflows toward the target; its ramp stays, gates and analysis go on, and a failure still aborts.',
          }),
        ),
        promote: Type.Optional(
          buildIdRef(
            'This build, the target, is promoted without waiting (twc promote): the remaining steps pass without their pauses or analysis, each gate still runs before its traffic; under Manual, the controller makes it current once healthy and past its gate.',
          ),
        ),
        abort: Type.Optional(
          buildIdRef(
            "This build's rollout is aborted (twc abort): its ramp is cleared and it takes no new workflows until the template names another build.",
          ),
        ),
        onAbort: Type.Optional(
          Type.Union([Type.Literal('Stay'), Type.Literal('MoveToPrevious')], {
            description:
              "What becomes of the pinned workflows that started on a build whose rollout was aborted (twc abort, a failed gate or analysis) once the build current before takes all new workflows again: Stay (the default) leaves them on the aborted build; MoveToPrevious moves those the current build's code replays onto it, in rounds as spec.sunset.pinnedWorkflows.moveToCurrent does, and names the rest in the build's status.",
          }),
        ),
      },
      { description },
    ),
    {
      cel: "self.strategy != 'Manual' || !has(self.paused)",
      message: 'paused holds a rollout; the Manual strategy moves no traffic',
      fieldPath: '.paused',
      check: (self) => self.strategy !== 'Manual' || self.paused === undefined,
    },
    {
      cel: "self.strategy != 'Manual' || !has(self.abort)",
      message: 'abort clears a ramp the controller set; the Manual strategy sets none',
      fieldPath: '.abort',
      check: (self) => self.strategy !== 'Manual' || self.abort === undefined,
    },
    {
      cel: '!has(self.promote) || !has(self.abort) || self.promote != self.abort',
      message: 'a build is promoted or aborted, not both',
      fieldPath: '.promote',
      check: (self) => self.promote === undefined || self.promote !== self.abort,
    },
    {
      cel: "self.strategy != 'Manual' || !has(self.analysis)",
      message: 'analysis judges Progressive steps or an AllAtOnce promotion; the Manual strategy moves no traffic',
      fieldPath: '.analysis',
      check: (self) => self.strategy !== 'Manual' || self.analysis === undefined,
    },
    {
      cel: "self.strategy != 'AllAtOnce' || !has(self.analysis) || has(self.analysis.window)",
      message: 'an AllAtOnce analysis needs a window: how long the promoted build is judged',
      fieldPath: '.analysis.window',
      check: (self) => self.strategy !== 'AllAtOnce' || self.analysis?.window !== undefined || !self.analysis,
    },
    {
      cel: "self.strategy != 'AllAtOnce' || !has(self.analysis) || !has(self.analysis.maxFailureRateIncrease)",
      message:
        'maxFailureRateIncrease compares with a current build that takes new workflows beside the ramping one: Progressive only',
      fieldPath: '.analysis.maxFailureRateIncrease',
      check: (self) => self.strategy !== 'AllAtOnce' || self.analysis?.maxFailureRateIncrease === undefined,
    },
    {
      cel: "self.strategy != 'Progressive' || has(self.steps)",
      message: `a Progressive rollout needs 1 to ${MAX_STEPS} steps`,
      fieldPath: '.steps',
      check: (self) => self.strategy !== 'Progressive' || self.steps !== undefined,
    },
    {
      cel: "self.strategy == 'Progressive' || !has(self.steps)",
      message: 'steps are used only by the Progressive strategy',
      fieldPath: '.steps',
      check: (self) => self.strategy === 'Progressive' || self.steps === undefined,
    },
    {
      cel: '!has(self.steps) || (self.steps.map(s, s.rampPercentage).isSorted() && self.steps.all(s, self.steps.exists_one(t, t.rampPercentage == s.rampPercentage)))',
      message: 'rampPercentage must increase strictly from one step to the next',
      fieldPath: '.steps',
      check: (self) =>
        (self.steps ?? []).every((s, i, all) => i === 0 || s.rampPercentage > (all[i - 1]?.rampPercentage ?? 0)),
    },
  );
}

export const rollout = rolloutSchema('How traffic moves to a new build.');

export type Rollout = Static<typeof rollout>;
