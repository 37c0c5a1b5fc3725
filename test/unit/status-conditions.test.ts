// The conditions of a worker deployment: one per type, transition times kept while unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blocking,
  conditionSet,
  degraded,
  MANUAL_PROMOTION,
  NO_POLLERS,
  mergeConditions,
  onePerType,
  progressing,
  stalled,
} from '../../src/status/conditions.ts';

test('one condition per type: the first said wins, later ones of the same status add to its message', () => {
  const merged = onePerType([
    progressing('False', 'DeploymentCreateFailed', 'cannot create Deployment a'),
    stalled('VersionLimitReached', 'too many builds'),
    stalled('GateFailed', 'the gate failed'),
    progressing('True', 'RollingOut', 'waiting for build b'),
  ]);
  assert.deepEqual(merged, [
    progressing('False', 'DeploymentCreateFailed', 'cannot create Deployment a'),
    stalled('VersionLimitReached', 'too many builds; also the gate failed'),
  ]);
  assert.deepEqual(
    onePerType([stalled('A', 'same'), stalled('B', 'same')]),
    [stalled('A', 'same')],
    'a repeated message is not repeated',
  );
});

test('the transition time moves only when the status does', () => {
  const previous = [{ ...progressing('True', 'RollingOut', 'a'), lastTransitionTime: '2026-11-22T10:00:00Z' }];
  const [same] = mergeConditions(previous, [progressing('True', 'RollingOut', 'b')], '2026-11-22T11:00:00Z', 3);
  assert.equal(same?.lastTransitionTime, '2026-11-22T10:00:00Z');
  assert.equal(same?.observedGeneration, 3);
  const [changed] = mergeConditions(previous, [progressing('False', 'Done', 'c')], '2026-11-22T11:00:00Z', 3);
  assert.equal(changed?.lastTransitionTime, '2026-11-22T11:00:00Z');
});

test('what is worth a Warning event', () => {
  assert.equal(blocking(stalled('GateFailed', 'x')), true);
  assert.equal(blocking(progressing('False', 'TemporalUnreachable', 'x')), true);
  assert.equal(blocking(progressing('False', 'Done', 'x')), false);
  assert.equal(blocking(progressing('True', 'RollingOut', 'x')), false);
});

/** `type=status/reason` of Ready, Progressing and Stalled, in that order. */
const triple = (said: Parameters<typeof conditionSet>[0]) =>
  conditionSet(said).map((c) => `${c.type}=${c.status}/${c.reason}`);
const ready = (status: 'True' | 'False', reason: string) => ({ type: 'Ready', status, reason, message: reason });

// One row per state of the table of conditions in docs/operations.md.
const states: [string, Parameters<typeof conditionSet>[0], string[]][] = [
  [
    'rolling out',
    [ready('False', 'RollingOut'), progressing('True', 'RollingOut', 'waiting')],
    ['Ready=False/RollingOut', 'Progressing=True/RollingOut', 'Stalled=False/RollingOut'],
  ],
  [
    "the target's Pods fail before the progress deadline",
    [
      ready('False', 'PodsFailing'),
      progressing('True', 'PodsFailing', 'Pod p: ImagePullBackOff'),
      ready('False', 'RollingOut'),
    ],
    ['Ready=False/PodsFailing', 'Progressing=True/PodsFailing', 'Stalled=False/PodsFailing'],
  ],
  [
    'the target is current',
    [ready('True', 'TargetCurrent'), progressing('False', 'Done', 'current')],
    ['Ready=True/TargetCurrent', 'Progressing=False/Done', 'Stalled=False/Done'],
  ],
  [
    'Manual: the target waits for people to promote it',
    [ready('False', MANUAL_PROMOTION), progressing('False', MANUAL_PROMOTION, 'yours')],
    ['Ready=False/ManualPromotion', 'Progressing=False/ManualPromotion', 'Stalled=False/ManualPromotion'],
  ],
  [
    'a human must act: Stalled wins over the rollout summary',
    [stalled('GateFailed', 'failed'), ready('False', 'RollingOut'), progressing('True', 'RollingOut', 'waiting')],
    ['Ready=False/GateFailed', 'Progressing=False/GateFailed', 'Stalled=True/GateFailed'],
  ],
  [
    'a stall said alone (InvalidSpec) still sets all three',
    [stalled('InvalidSpec', 'spec.replicas: bad')],
    ['Ready=False/InvalidSpec', 'Progressing=False/InvalidSpec', 'Stalled=True/InvalidSpec'],
  ],
  [
    'a failure that passes with time is not a stall',
    [progressing('False', 'TemporalUnreachable', 'down'), ready('False', 'RollingOut')],
    ['Ready=False/TemporalUnreachable', 'Progressing=False/TemporalUnreachable', 'Stalled=False/TemporalUnreachable'],
  ],
  [
    'deleting',
    [progressing('True', 'Deleting', 'waiting for pollers')],
    ['Ready=False/Deleting', 'Progressing=True/Deleting', 'Stalled=False/Deleting'],
  ],
];

for (const [title, said, expected] of states) {
  test(`conditions of a state: ${title}`, () => {
    assert.deepEqual(triple(said), expected);
    const set = conditionSet(said);
    assert.ok(!(set[1]?.status === 'True' && set[2]?.status === 'True'), 'never Progressing and Stalled at once');
  });
}

test("a stall's message is what Ready and Progressing say too", () => {
  const [readyC, progressingC] = conditionSet([
    stalled('GateFailed', 'gate rollout failed: boom'),
    progressing('True', 'RollingOut', 'x'),
  ]);
  assert.equal(readyC?.message, 'gate rollout failed: boom');
  assert.equal(progressingC?.message, 'gate rollout failed: boom');
});

test('a condition keeps only the transition time of its own type, and no generation unless one is given', () => {
  const previous = [
    {
      type: 'Ready',
      status: 'True' as const,
      reason: 'Done',
      message: 'r',
      lastTransitionTime: '2026-11-22T10:00:00Z',
    },
  ];
  assert.deepEqual(
    mergeConditions(previous, [progressing('True', 'RollingOut', 'p')], '2026-11-22T11:00:00Z', undefined),
    [{ ...progressing('True', 'RollingOut', 'p'), lastTransitionTime: '2026-11-22T11:00:00Z' }],
  );
});

test('only a Stalled condition that is True, or a Progressing one that is False and not Done, is worth a Warning', () => {
  assert.equal(blocking({ type: 'Stalled', status: 'False', reason: 'VersionLimitReached', message: 'x' }), false);
  assert.equal(blocking({ type: 'Stalled', status: 'Unknown', reason: 'VersionLimitReached', message: 'x' }), false);
  assert.equal(blocking({ type: 'Ready', status: 'False', reason: 'RollingOut', message: 'x' }), false);
  assert.equal(
    blocking({ type: 'Progressing', status: 'Unknown', reason: 'TemporalUnreachable', message: 'x' }),
    false,
  );
});

test('Manual: Ready keeps what was said of it, not the message of Progressing', () => {
  const readyC = { type: 'Ready', status: 'False' as const, reason: MANUAL_PROMOTION, message: 'promote it yourself' };
  const progressC = progressing('False', MANUAL_PROMOTION, 'waiting for you');
  assert.deepEqual(conditionSet([readyC, progressC]), [
    readyC,
    progressC,
    { ...progressC, type: 'Stalled', status: 'False' },
  ]);
});

test('only Ready said: Progressing is made up from it, False when Ready is True, True otherwise', () => {
  const done = { type: 'Ready', status: 'True' as const, reason: 'TargetCurrent', message: 'current' };
  assert.deepEqual(conditionSet([done]), [
    done,
    { type: 'Progressing', status: 'False', reason: 'TargetCurrent', message: 'current' },
    { type: 'Stalled', status: 'False', reason: 'TargetCurrent', message: 'current' },
  ]);
  const notYet = { type: 'Ready', status: 'False' as const, reason: 'RollingOut', message: 'waiting' };
  assert.deepEqual(conditionSet([notYet]), [
    notYet,
    { type: 'Progressing', status: 'True', reason: 'RollingOut', message: 'waiting' },
    { type: 'Stalled', status: 'False', reason: 'RollingOut', message: 'waiting' },
  ]);
});

test('nothing said: reconciling', () => {
  assert.deepEqual(conditionSet([]), [
    { type: 'Ready', status: 'False', reason: 'Reconciling', message: 'nothing said yet' },
    { type: 'Progressing', status: 'True', reason: 'Reconciling', message: 'nothing said yet' },
    { type: 'Stalled', status: 'False', reason: 'Reconciling', message: 'nothing said yet' },
  ]);
});

test('a condition of another type (CertificateExpiring) follows the three as said, and changes none of them', () => {
  const warning = {
    type: 'CertificateExpiring',
    status: 'True' as const,
    reason: 'CertificateExpiring',
    message: 'soon',
  };
  assert.deepEqual(conditionSet([ready('True', 'TargetCurrent'), progressing('False', 'Done', 'current'), warning]), [
    ready('True', 'TargetCurrent'),
    progressing('False', 'Done', 'current'),
    { ...progressing('False', 'Done', 'current'), type: 'Stalled' },
    warning,
  ]);
  assert.deepEqual(
    conditionSet([stalled('GateFailed', 'failed'), warning, { ...warning, message: 'later' }]).map((c) => c.type),
    ['Ready', 'Progressing', 'Stalled', 'CertificateExpiring'],
    'one of each type',
  );
});

test('Degraded is said beside the three, as said and only while said, and is no Warning of its own', () => {
  const noPollers = degraded(NO_POLLERS, 'build v1 polls nothing');
  const current = [ready('True', 'TargetCurrent'), progressing('False', 'Done', 'done')];
  assert.deepEqual(triple([...current, noPollers]), [
    'Ready=True/TargetCurrent',
    'Progressing=False/Done',
    'Stalled=False/Done',
    'Degraded=True/NoPollers',
  ]);
  assert.deepEqual(triple([stalled('GateFailed', 'x'), noPollers]).slice(3), ['Degraded=True/NoPollers']);
  assert.deepEqual(triple(current).length, 3, 'gone once not said');
  assert.equal(blocking(noPollers), false);
});
