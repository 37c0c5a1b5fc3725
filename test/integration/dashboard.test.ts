// `twc dashboard` in a real browser: headless Chromium from Debian's packages, driven by
// puppeteer-core, during a Progressive rollout on the local environment. The page updates from the
// event stream without a reload, shows one worker deployment in full, asks nothing of any other
// origin, and the server refuses writes. Screenshots go to reports/dashboard/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { progressiveAtFirstBuild } from '../support/controller.ts';
import { sharedEnvironment } from '../support/environment.ts';
import { ensureCommand } from '../support/system-packages.ts';

const TWC = path.join(import.meta.dirname, '../../bin/twc');
const REPORTS = path.join(import.meta.dirname, '../../reports/dashboard');

/** Starts `twc dashboard` on a free port; resolves with its address once it serves. */
async function dashboard(t: { after: (fn: () => unknown) => void }, namespace: string): Promise<string> {
  const child = spawn(TWC, ['dashboard', '-n', namespace, '--port', '0'], {
    env: { ...process.env, KUBECONFIG: sharedEnvironment().kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGTERM'));
  let out = '';
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /^dashboard: (\S+)$/m.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`twc dashboard exited with ${code}: ${out}`)));
  });
}

test('the dashboard shows a Progressive rollout live in Chromium, one worker deployment in full, and asks nothing of elsewhere', async (t) => {
  ensureCommand('chromium', ['--version'], 'chromium');
  // Backlog metrics on, as twc run has them: the leader reads each build's pollers too.
  const { namespace, ns, v1 } = await progressiveAtFirstBuild(t, 'dashboard', { backlogMetrics: true });
  const url = await dashboard(t, namespace);

  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // As root, Chromium runs only without its sandbox.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 640 });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await mkdir(REPORTS, { recursive: true });

  const card = `[data-worker-deployment="${namespace}/orders"]`;
  await page.waitForSelector(`${card} tr[data-build="${v1}"] td.state.Current`, { timeout: 30_000 });
  await page.waitForSelector('#live.on', { timeout: 10_000 });
  // The test has no DOM types: what it reads in the page is an expression evaluated there.
  const inPage = <T>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;
  const text = (selector: string, expression = 'textContent'): Promise<string> =>
    inPage(`document.querySelector(${JSON.stringify(selector)})?.${expression} ?? ''`);
  // Set in the page now: still there later means no reload brought what follows.
  await inPage('window.sameDocument = true');

  await ns.patchSpec('orders', { template: ns.template('green') });
  await page.waitForSelector(`${card} td.state.Ramping`, { timeout: 60_000 });
  assert.equal(await text(`${card} td.state.Ramping`), 'Ramping 25%');
  const v2 = await text(`${card} td.state.Ramping`, "closest('tr').dataset.build");
  assert.notEqual(v2, v1);
  assert.equal(
    await text(`${card} tr[data-build="${v2}"] .bar > div`, 'style.width'),
    '25%',
    'the new build takes a quarter of new workflows',
  );
  assert.equal(
    await text(`${card} .lane[data-build="${v2}"] .phase.Ramping`),
    '25%',
    "the new build's ramp on the timeline",
  );
  assert.equal(await text(`${card} .lane[data-build="${v1}"] .phase.Current`), 'current');
  await page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(`${card} td.pollers`)})].every((cell) => cell.textContent === '1')`,
    { timeout: 30_000 },
  );
  assert.equal(await inPage<boolean>('window.sameDocument === true'), true, 'no reload');
  await page.screenshot({ path: path.join(REPORTS, 'overview-ramping.png') });

  // The page redraws every 5 s and on each update, replacing its nodes: a click from outside can
  // land between finding the link and pressing it, so the link is clicked from within the page.
  await inPage(`document.querySelector(${JSON.stringify(`${card} h2 a`)}).click()`);
  await page.waitForSelector('table.conditions', { timeout: 10_000 });
  const conditions = await inPage<string[]>(
    "[...document.querySelectorAll('table.conditions tr')].map((row) => row.children[0].textContent)",
  );
  assert.deepEqual(conditions.sort(), ['Progressing', 'Ready', 'Stalled']);
  assert.ok((await page.$$('table.events tr')).length > 0, 'its events');
  await page.screenshot({ path: path.join(REPORTS, 'worker-deployment.png') });

  await page.waitForSelector(`tr[data-build="${v2}"] td.state.Current`, { timeout: 90_000 });
  await page.waitForSelector(`tr[data-build="${v1}"] td.state.Draining, tr[data-build="${v1}"] td.state.Drained`);
  await page.waitForSelector(`.lane[data-build="${v2}"] .phase.Current`, { timeout: 30_000 });
  await page.waitForSelector(`.lane[data-build="${v1}"] .phase.Draining, .lane[data-build="${v1}"] .phase.Drained`, {
    timeout: 30_000,
  });
  await page.screenshot({ path: path.join(REPORTS, 'worker-deployment-promoted.png') });

  const origin = new URL(url).origin;
  assert.deepEqual(
    requested.filter((request) => new URL(request).origin !== origin),
    [],
    'nothing fetched from elsewhere',
  );
  const write = await fetch(new URL('/api/worker-deployments', url), { method: 'POST', body: '{}' });
  assert.equal(write.status, 405, 'read-only');
  const listed = (await (await fetch(new URL('/api/worker-deployments', url))).json()) as { items: { name: string }[] };
  assert.deepEqual(
    listed.items.map((item) => item.name),
    ['orders'],
  );
  t.diagnostic(`screenshots saved in ${REPORTS}`);
});
