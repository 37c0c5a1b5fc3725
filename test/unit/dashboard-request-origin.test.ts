// The dashboard answers requests made for it, not those a page of another site has a browser
// send to it (DNS rebinding, cross-origin reads).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foreignRequest } from '../../src/cli/dashboard/request-origin.ts';

test('Hosts of local runs and port-forwards are served, with no Origin or their own', () => {
  for (const host of ['localhost:8090', '127.0.0.1:8090', '[::1]:8090', '10.0.0.7:8090', 'localhost'])
    assert.equal(foreignRequest({ host }), undefined, host);
  assert.equal(foreignRequest({ host: '127.0.0.1:8090', origin: 'http://127.0.0.1:8090' }), undefined);
});

test('a rebound name, another site as Origin, or no Host is refused, saying why', () => {
  assert.equal(
    foreignRequest({ host: 'attacker.example:8090' }),
    'Host attacker.example:8090 is not served here: open the dashboard at localhost or an IP address',
  );
  assert.equal(
    foreignRequest({ host: '127.0.0.1:8090', origin: 'https://attacker.example' }),
    'a page of https://attacker.example may not read the dashboard',
  );
  assert.match(foreignRequest({ host: 'localhost:8090', origin: 'null' }) ?? '', /a page of null/);
  assert.match(foreignRequest({ host: 'localhost:8090', origin: 'http://localhost:9999' }) ?? '', /may not read/);
  assert.equal(foreignRequest({}), 'no Host header');
  assert.match(foreignRequest({ host: 'localhost.attacker.example' }) ?? '', /is not served here/);
});
