import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { createLogger, jsonLogger, type LogFields } from '../../src/runtime/logger.ts';

function recorded(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line) };
}

test("a JSON line carries time, level's name, a child's bindings, the call's fields and the message", () => {
  const out = recorded();
  const log = jsonLogger('info', out);
  log
    .child({ object: 'ns/orders', reconcile: 7 })
    .info({ build: 'v1-abc' }, '100% of new workflows go to build v1-abc');
  assert.equal(out.lines.length, 1);
  assert.match(out.lines[0] ?? '', /^\{.*\}\n$/, 'one line of JSON');
  const { time, ...entry } = JSON.parse(out.lines[0] ?? '') as LogFields;
  assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(entry, {
    level: 'info',
    object: 'ns/orders',
    reconcile: 7,
    build: 'v1-abc',
    msg: '100% of new workflows go to build v1-abc',
  });
});

test('entries below the level are not written', () => {
  const out = recorded();
  const log = jsonLogger('warn', out);
  log.debug('debug');
  log.info('info');
  log.warn('warn');
  log.error('error');
  assert.deepEqual(
    out.lines.map((line) => (JSON.parse(line) as LogFields).msg),
    ['warn', 'error'],
  );
});

test('auto is JSON unless a person reads the destination; pretty is one line with the level, message and fields', async () => {
  const json = recorded();
  await createLogger({ level: 'info', format: 'auto', destination: json, terminal: false }).then((log) =>
    log.info('hello'),
  );
  assert.equal((JSON.parse(json.lines[0] ?? '') as LogFields).msg, 'hello');

  for (const [format, terminal] of [
    ['auto', true],
    ['pretty', false],
  ] as const) {
    const out = recorded();
    const log = await createLogger({ level: 'info', format, destination: out, terminal });
    log.child({ object: 'ns/orders' }).warn({ error: 'refused' }, 'reconcile failed');
    assert.equal(out.lines.length, 1, format);
    const line = stripVTControlCharacters(out.lines[0] ?? '');
    assert.match(
      line,
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: reconcile failed \{"object":"ns\/orders","error":"refused"\}\n$/,
    );
    assert.equal(line !== out.lines[0], terminal, 'coloured on a terminal only');
  }
});
