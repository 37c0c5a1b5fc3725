// The body a receiver gets for one rollout notice: a generic JSON object, or what a Slack incoming
// webhook takes ({"text", "blocks"}). Pure: the time is the one passed in.
import type { NotificationFormat } from '../api/notifications.ts';
import type { RolloutNotice } from './rollout-notices.ts';

export interface NoticeContext {
  namespace: string;
  workerDeployment: string;
  at: Date;
}

/** The generic payload: one flat object, stable field names a receiver can route on. */
export interface GenericPayload {
  kind: RolloutNotice['kind'];
  namespace: string;
  workerDeployment: string;
  buildID: string;
  message: string;
  time: string;
}

const SLACK_TITLES: Record<RolloutNotice['kind'], string> = {
  Started: ':rocket: Rollout started',
  StepPassed: ':arrow_forward: Step passed',
  Promoted: ':white_check_mark: Promoted',
  Aborted: ':x: Rollout aborted',
  Stalled: ':warning: Rollout stalled',
  OldBuildRetired: ':wastebasket: Old build retired',
  BatchOperationFinished: ':package: Batch operation finished',
};

export function notificationBody(format: NotificationFormat, notice: RolloutNotice, context: NoticeContext): string {
  return JSON.stringify(format === 'Slack' ? slackPayload(notice, context) : genericPayload(notice, context));
}

export function genericPayload(notice: RolloutNotice, context: NoticeContext): GenericPayload {
  return {
    kind: notice.kind,
    namespace: context.namespace,
    workerDeployment: context.workerDeployment,
    buildID: notice.buildId,
    message: notice.message,
    time: context.at.toISOString(),
  };
}

export function slackPayload(notice: RolloutNotice, context: NoticeContext): { text: string; blocks: unknown[] } {
  const object = `${context.namespace}/${context.workerDeployment}`;
  // `text` stands alone where blocks are not shown (a phone's notification).
  const text = `${SLACK_TITLES[notice.kind]}: ${escaped(object)}: ${escaped(notice.message)}`;
  const about = [
    `TemporalWorkerDeployment ${escaped(object)}`,
    ...(notice.buildId ? [`build ${escaped(notice.buildId)}`] : []),
  ];
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${SLACK_TITLES[notice.kind]}*\n${escaped(notice.message)}` } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: [...about, context.at.toISOString()].join(' · ') }],
      },
    ],
  };
}

/** Slack reads &, < and > as markup: a message naming `<none>` must not become a link. */
function escaped(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
