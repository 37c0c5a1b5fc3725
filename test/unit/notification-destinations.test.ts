// The tenant boundary of spec.notifications: a receiver's URL and credential come from its one
// Secret, and only to a destination the controller's administrator allows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allows, destinationOf, invalidDestinations } from '../../src/domain/notification-destinations.ts';

const field = 'spec.notifications[0].secretRef';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const allowed = ['https://hooks.example.com/services/'];

test("the URL and the Authorization header are the Secret's own: nothing else chooses where its content goes", () => {
  assert.deepEqual(
    destinationOf(
      field,
      {
        name: 'hook',
        data: { url: b64('https://hooks.example.com/services/T1/B2'), authorization: b64('Bearer s3cret\n') },
      },
      allowed,
    ),
    { destination: { url: 'https://hooks.example.com/services/T1/B2', authorization: 'Bearer s3cret' } },
  );
  assert.deepEqual(
    destinationOf(field, { name: 'hook', data: { url: b64('https://hooks.example.com/services/x') } }, allowed),
    {
      destination: { url: 'https://hooks.example.com/services/x' },
    },
  );
});

test('no destination allowed: notifications are off, said naming the field and the flag', () => {
  const verdict = destinationOf(
    field,
    { name: 'hook', data: { url: b64('https://hooks.example.com/services/x') } },
    [],
  );
  assert.deepEqual(verdict, {
    refused:
      'spec.notifications[0].secretRef: notifications are off in this controller: its administrator allows no destination (--notification-destinations, chart value controller.notificationDestinations)',
  });
});

test('a destination outside the allowed prefixes is refused, naming the host and not the URL (it may hold a token)', () => {
  const verdict = destinationOf(
    field,
    { name: 'hook', data: { url: b64('http://10.0.0.1:8080/token-abc'), authorization: b64('Bearer s3cret') } },
    allowed,
  );
  assert.ok('refused' in verdict);
  assert.match(
    verdict.refused,
    /^spec\.notifications\[0\]\.secretRef: .*host 10\.0\.0\.1:8080.*--notification-destinations/,
  );
  assert.doesNotMatch(verdict.refused, /token-abc|s3cret/);
});

test('a Secret missing, without its url key, or with no URL in it: refused, naming the field', () => {
  for (const [data, words] of [
    [undefined, 'Secret hook does not exist'],
    [{}, 'Secret hook has no key url'],
    [{ url: b64('not a url') }, 'key url of Secret hook is not a URL'],
  ] as const) {
    const verdict = destinationOf(field, { name: 'hook', data }, allowed);
    assert.deepEqual(verdict, { refused: `${field}: ${words}` });
  }
});

test('allowed prefixes are compared as URLs, not as text', () => {
  const cases: [string, string, boolean][] = [
    ['https://hooks.example.com/services/', 'https://hooks.example.com/services/T1', true],
    ['https://hooks.example.com/services', 'https://hooks.example.com/services/T1', true],
    ['https://hooks.example.com/services', 'https://hooks.example.com/servicesX', false],
    ['https://hooks.example.com', 'https://hooks.example.com.evil.net/', false],
    ['https://hooks.example.com', 'https://hooks.example.com@evil.net/', false],
    ['https://hooks.example.com', 'http://hooks.example.com/', false],
    ['https://hooks.example.com', 'https://hooks.example.com:8443/', false],
    ['https://hooks.example.com/a/', 'https://hooks.example.com/a/../../b', false],
    ['http://127.0.0.1:9000/', 'http://127.0.0.1:9000/hook', true],
  ];
  for (const [prefix, url, expected] of cases)
    assert.equal(allows(prefix, new URL(url)), expected, `${prefix} allows ${url}: ${expected}`);
});

test('a flag value that is no http(s) URL is refused at startup', () => {
  assert.deepEqual(invalidDestinations(['https://ok.example.com/', 'hooks.example.com', 'file:///etc/passwd']), [
    'hooks.example.com',
    'file:///etc/passwd',
  ]);
});
