// Whether a request to the dashboard came for this dashboard. A page of any site can make the
// browser of someone running `twc dashboard` send requests to 127.0.0.1, and by DNS rebinding read
// the answers under its own name: such requests carry that name in Host, or that site in Origin.
// The dashboard answers Hosts that are `localhost` or an IP address (what port-forwards and local
// runs use), and an Origin only when it is the Host's own. Pure.
import { isIP } from 'node:net';

/** Why the request is refused; undefined when the dashboard serves it. */
export function foreignRequest(headers: {
  host?: string | undefined;
  origin?: string | undefined;
}): string | undefined {
  const host = headers.host;
  if (!host) return 'no Host header';
  const hostname = URL.parse(`http://${host}`)?.hostname.replace(/^\[(.*)\]$/, '$1');
  const served = hostname === 'localhost' || (hostname !== undefined && isIP(hostname) !== 0);
  if (!served) return `Host ${host} is not served here: open the dashboard at localhost or an IP address`;
  if (headers.origin !== undefined && headers.origin !== `http://${host}`)
    return `a page of ${headers.origin} may not read the dashboard`;
  return undefined;
}
