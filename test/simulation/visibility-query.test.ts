// The query parser decides which workflows a batch touches and what counts say: a parser that
// matched too little would hide a batch that cancels auto-upgrade workflows, one that matched too
// much would invent it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedWorkflowsQuery, runningBatchesQuery, runningWorkflowsQuery } from '../../src/domain/visibility.ts';
import { matches, parseQuery, QueryError, type Row, valuesCompared } from './visibility-query.ts';

const row = (over: Row): Row => ({
  TemporalWorkerDeploymentVersion: 'shop/orders:v1',
  TemporalWorkflowVersioningBehavior: 'Pinned',
  ExecutionStatus: 'Running',
  WorkflowType: 'order',
  ...over,
});

test("the controller's ladder query matches running pinned workflows of its build only", () => {
  const { where } = parseQuery(runningWorkflowsQuery('shop/orders', ['v1']));
  assert.equal(matches(where, row({})), true);
  assert.equal(matches(where, row({ TemporalWorkflowVersioningBehavior: 'AutoUpgrade' })), false);
  assert.equal(matches(where, row({ TemporalWorkerDeploymentVersion: 'shop/orders:v2' })), false);
  assert.equal(matches(where, row({ ExecutionStatus: 'Completed' })), false);
  assert.equal(matches(where, row({ TemporalWorkerDeploymentVersion: undefined })), false);
});

test("the controller's list of a build's running batches matches batch workflows under its job ID prefix only", () => {
  const { where } = parseQuery(runningBatchesQuery('twc/shop/orders/v1/'));
  const batch = (over: Row): Row => ({
    TemporalNamespaceDivision: 'TemporalBatcher',
    WorkflowId: 'twc/shop/orders/v1/cancel/abc',
    ExecutionStatus: 'Running',
    ...over,
  });
  assert.equal(matches(where, batch({})), true);
  assert.equal(matches(where, batch({ WorkflowId: 'twc/shop/orders/v10/cancel/abc' })), false);
  assert.equal(matches(where, batch({ ExecutionStatus: 'Completed' })), false);
  assert.equal(matches(where, batch({ TemporalNamespaceDivision: undefined })), false, 'a workflow, not a batch');
});

test('the query of 13d0149, without the behaviour, matches auto-upgrade workflows too', () => {
  const { where } = parseQuery("(TemporalWorkerDeploymentVersion = 'shop/orders:v1') AND ExecutionStatus = 'Running'");
  assert.equal(matches(where, row({ TemporalWorkflowVersioningBehavior: 'AutoUpgrade' })), true);
});

test('OR binds looser than AND, and parentheses group', () => {
  const { where } = parseQuery(
    "(TemporalWorkerDeploymentVersion = 'a:v1' OR TemporalWorkerDeploymentVersion = 'a:v2') AND ExecutionStatus = 'Running'",
  );
  assert.equal(matches(where, row({ TemporalWorkerDeploymentVersion: 'a:v2' })), true);
  assert.equal(matches(where, row({ TemporalWorkerDeploymentVersion: 'a:v2', ExecutionStatus: 'Failed' })), false);
  const loose = parseQuery("WorkflowType = 'x' OR WorkflowType = 'order' AND ExecutionStatus = 'Failed'").where;
  assert.equal(matches(loose, row({ WorkflowType: 'x', ExecutionStatus: 'Running' })), true);
  assert.equal(matches(loose, row({ ExecutionStatus: 'Running' })), false);
  assert.deepEqual(
    valuesCompared(parseQuery(runningWorkflowsQuery('a', ['v1', 'v2'])).where, 'TemporalWorkerDeploymentVersion'),
    ['a:v1', 'a:v2'],
  );
});

test('the analysis query: closed since a time, of some types, grouped by status', () => {
  const since = new Date('2026-11-23T12:00:00Z');
  const query = parseQuery(closedWorkflowsQuery('shop/orders', 'v1', since, ['order', 'refund']));
  assert.equal(query.groupBy, 'ExecutionStatus');
  const closed = row({ ExecutionStatus: 'Failed', CloseTime: '2026-11-23T12:00:01.000Z' });
  assert.equal(matches(query.where, closed), true);
  assert.equal(matches(query.where, { ...closed, CloseTime: '2026-11-23T11:59:59.000Z' }), false);
  assert.equal(matches(query.where, { ...closed, WorkflowType: 'payment' }), false);
  assert.equal(matches(query.where, row({ CloseTime: '2026-11-23T12:00:01.000Z' })), false);
  assert.equal(matches(parseQuery("NOT WorkflowType = 'order'").where, row({})), false);
});

test('a search attribute or syntax the model does not know is an error, not a guess', () => {
  assert.throws(() => parseQuery("BuildIds = 'v1'"), QueryError);
  assert.throws(() => parseQuery("WorkflowType = 'order"), QueryError);
  assert.throws(() => parseQuery("WorkflowType = 'order' AND"), QueryError);
  assert.throws(() => parseQuery("WorkflowType 'order'"), QueryError);
  assert.throws(() => parseQuery("(WorkflowType = 'order'"), QueryError);
  assert.throws(() => parseQuery("WorkflowType = 'order' LIMIT 3"), QueryError);
});
