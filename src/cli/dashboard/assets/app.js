// The dashboard's page: the worker deployments as `twc status` sees them, redrawn from the
// server's event stream. `#/` lists them all with their builds on a timeline; `#/<namespace>/<name>`
// shows one with its gates, analysis, owned resources, conditions and events. Text goes in with
// textContent only: nothing the cluster holds is ever parsed as HTML.

/** @type {{ items: any[] }} */
let state = { items: [] };

/** An element with its class, attributes and children (strings become text). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'style') Object.assign(node.style, value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

function age(since) {
  const seconds = Math.max(0, Math.floor((Date.now() - new Date(since).getTime()) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function stateLabel(build) {
  return build.status === 'Ramping' && build.rampPercentage !== undefined
    ? `Ramping ${build.rampPercentage}%`
    : build.status;
}

/** The share of new workflows a build takes, as a bar. */
function share(build) {
  const percent = build.status === 'Current' ? 100 : build.status === 'Ramping' ? (build.rampPercentage ?? 0) : 0;
  return el(
    'div',
    { class: 'bar', title: `${percent}% of new workflows` },
    el('div', { class: build.status, style: { width: `${percent}%` } }),
  );
}

function replicas(build) {
  return build.deployments.map((d) =>
    el(
      'div',
      {},
      `${d.ready}/${d.desired ?? '—'} ready`,
      d.pool ? el('span', { class: 'muted' }, ` pool ${d.pool}`) : '',
    ),
  );
}

/** Workers Temporal saw polling, where the controller read them; marked when ready Pods have none. */
function pollers(build) {
  if (build.pollers === undefined) return '';
  const unheard = build.pollers === 0 && build.deployments.some((d) => d.ready > 0);
  return el('span', { class: unheard ? 'warn' : '' }, String(build.pollers));
}

function drainage(build) {
  if (build.runningWorkflows !== undefined) return `${build.runningWorkflows} workflows running`;
  if (build.drainedSince) return `drained ${age(build.drainedSince)} ago`;
  return '';
}

function buildsTable(view) {
  return el(
    'table',
    { class: 'builds' },
    el(
      'tr',
      {},
      ['Build', 'State', 'New workflows', 'Replicas', 'Pollers seen', 'Age', 'Workflows'].map((h) => el('th', {}, h)),
    ),
    view.builds.map((build) =>
      el(
        'tr',
        { 'data-build': build.buildID },
        el(
          'td',
          { class: 'build' },
          build.buildID,
          build.roles.includes('target') && build.status !== 'Current' ? el('span', { class: 'muted' }, ' target') : '',
        ),
        el('td', { class: `state ${build.status}` }, stateLabel(build)),
        el('td', {}, share(build)),
        el('td', {}, replicas(build)),
        el('td', { class: 'pollers' }, pollers(build)),
        el('td', {}, build.createdAt ? age(build.createdAt) : ''),
        el('td', {}, drainage(build)),
      ),
    ),
  );
}

const PHASE_LABELS = {
  Waiting: 'waiting',
  RollingOut: 'rolling out',
  Active: 'current or ramping',
  Current: 'current',
  Draining: 'draining',
  Drained: 'drained',
};

/**
 * Each build's phases on one time axis that ends now and begins with the rollout in flight (the
 * target's and the current build's first phase); older phases start at its left edge.
 */
function timeline(view) {
  const now = Date.now();
  const time = (phase) => new Date(phase.from).getTime();
  const inFlight = view.builds.filter((b) => b.roles.includes('target') || b.roles.includes('current'));
  const starts = inFlight.flatMap((b) => b.phases.slice(0, 1).map(time));
  if (starts.length === 0) return '';
  const start = Math.min(...starts);
  const span = Math.max(now - start, 1000);
  const at = (t) => Math.min(100, Math.max(0, ((t - start) / span) * 100));
  return el(
    'div',
    { class: 'timeline' },
    view.builds.map((build) =>
      el(
        'div',
        { class: 'lane', 'data-build': build.buildID },
        el('span', { class: 'build' }, build.buildID),
        el(
          'div',
          { class: 'track' },
          build.phases.map((phase, i) => {
            const next = build.phases[i + 1];
            const [left, right] = [at(time(phase)), at(next ? time(next) : now)];
            const label = phase.state === 'Ramping' ? `${phase.percentage}%` : PHASE_LABELS[phase.state];
            return el(
              'div',
              {
                class: `phase ${phase.state}`,
                title: `${label} from ${new Date(phase.from).toLocaleString()}, for ${age(phase.from)}`,
                style: {
                  left: `${left}%`,
                  width: `${right - left}%`,
                  ...(phase.state === 'Ramping' ? { opacity: String(0.35 + (0.65 * phase.percentage) / 100) } : {}),
                },
              },
              label,
            );
          }),
        ),
      ),
    ),
    el(
      'div',
      { class: 'axis muted' },
      el('span', {}, new Date(start).toLocaleTimeString()),
      el('span', {}, `now (${age(new Date(start).toISOString())})`),
    ),
  );
}

function conditionText(view) {
  const ready = view.conditions.find((c) => c.type === 'Ready');
  const stalled = view.conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled) return el('div', { class: 'bad' }, `Stalled: ${stalled.reason}: ${stalled.message}`);
  if (ready)
    return el('div', { class: ready.status === 'True' ? 'good' : 'muted' }, `${ready.reason}: ${ready.message}`);
  return '';
}

function overview() {
  if (state.items.length === 0) return [el('p', { class: 'muted' }, 'No worker deployment found.')];
  return state.items.map((view) =>
    el(
      'section',
      { class: 'card', 'data-worker-deployment': `${view.namespace}/${view.name}` },
      el('h2', {}, el('a', { href: `#/${view.namespace}/${view.name}` }, `${view.namespace}/${view.name}`)),
      el('div', { class: 'meta' }, strategy(view)),
      buildsTable(view),
      timeline(view),
      conditionText(view),
    ),
  );
}

function strategy(view) {
  const steps = view.steps ? ` ${view.steps.map((s) => `${s}%`).join(' → ')} → 100%` : '';
  const observed =
    view.generation !== undefined && view.observedGeneration !== view.generation
      ? ` (observed ${view.observedGeneration ?? 'none yet'})`
      : '';
  return `${view.strategy}${steps} · generation ${view.generation ?? '?'}${observed}`;
}

function detail(namespace, name) {
  const view = state.items.find((v) => v.namespace === namespace && v.name === name);
  if (!view) return [el('p', { class: 'muted' }, `Worker deployment ${namespace}/${name} not found.`)];
  const gates = view.builds.flatMap((b) => b.gates.map((g) => ({ build: b.buildID, ...g })));
  const analyses = view.builds.filter((b) => b.analysis);
  const owned = view.builds.flatMap((b) => b.ownedResources.map((o) => ({ build: b.buildID, ...o })));
  return [
    el(
      'section',
      { class: 'card', 'data-worker-deployment': `${view.namespace}/${view.name}` },
      el('h2', {}, `${view.namespace}/${view.name}`),
      el('div', { class: 'meta' }, strategy(view)),
      buildsTable(view),
      el('h3', {}, 'Timeline'),
      timeline(view),
      gates.length > 0 && el('h3', {}, 'Gates'),
      gates.length > 0 &&
        el(
          'table',
          {},
          gates.map((g) =>
            el(
              'tr',
              {},
              el('td', { class: 'build' }, g.build),
              el('td', {}, g.stage),
              el('td', { class: g.status === 'Failed' ? 'bad' : g.status === 'Completed' ? 'good' : '' }, g.status),
              el('td', { class: 'muted' }, g.workflowID),
            ),
          ),
        ),
      analyses.length > 0 && el('h3', {}, 'Analysis'),
      analyses.map((b) =>
        el(
          'div',
          {},
          el('span', { class: 'build' }, b.buildID),
          ` step ${b.analysis.step}: `,
          el('b', {}, b.analysis.verdict),
          ` ${b.analysis.message}`,
        ),
      ),
      owned.length > 0 && el('h3', {}, 'Owned resources'),
      owned.length > 0 &&
        el(
          'table',
          {},
          owned.map((o) =>
            el(
              'tr',
              {},
              el('td', { class: 'build' }, o.build),
              el('td', {}, `${o.kind} ${o.name}`),
              el('td', { class: o.applied ? 'good' : 'bad' }, o.applied ? 'applied' : (o.message ?? 'not applied')),
            ),
          ),
        ),
      el('h3', {}, 'Conditions'),
      el(
        'table',
        { class: 'conditions' },
        view.conditions.map((c) =>
          el('tr', {}, el('td', {}, c.type), el('td', {}, c.status), el('td', {}, c.reason), el('td', {}, c.message)),
        ),
      ),
      el('h3', {}, 'Events'),
      el(
        'table',
        { class: 'events' },
        view.events.map((e) =>
          el(
            'tr',
            {},
            el('td', { class: 'muted' }, e.lastSeen ? `${age(e.lastSeen)} ago` : ''),
            el('td', { class: e.type === 'Warning' ? 'bad' : '' }, e.reason),
            el('td', {}, e.count > 1 ? `×${e.count}` : ''),
            el('td', {}, e.message),
          ),
        ),
      ),
    ),
  ];
}

function draw() {
  const [, namespace, name] = location.hash.split('/');
  document
    .getElementById('main')
    .replaceChildren(
      ...(namespace && name ? detail(decodeURIComponent(namespace), decodeURIComponent(name)) : overview()),
    );
}

/**
 * A dashboard that requires a bearer token (the chart's) answers 401 or 403: the page asks for
 * one and keeps it in a cookie of this origin, which the event stream sends too.
 */
async function connect() {
  const live = document.getElementById('live');
  const first = await window.fetch('/api/worker-deployments');
  if (first.status === 401 || first.status === 403) {
    const token = window.prompt(`${await first.text()}\nA bearer token that may list TemporalWorkerDeployments:`);
    if (!token) {
      live.textContent = 'no token';
      return;
    }
    document.cookie = `twc_token=${encodeURIComponent(token.trim())}; path=/; SameSite=Strict`;
    return connect();
  }
  const stream = new EventSource('/api/stream');
  stream.onopen = () => {
    live.textContent = 'live';
    live.classList.add('on');
  };
  stream.onerror = () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  };
  stream.onmessage = (message) => {
    state = JSON.parse(message.data);
    document.body.dataset.updates = String(Number(document.body.dataset.updates ?? 0) + 1);
    draw();
  };
}

window.addEventListener('hashchange', draw);
// Ages and the timeline's end move with time, not only with changes.
window.setInterval(draw, 5000);
void connect();
