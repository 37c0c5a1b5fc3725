// Who is asking, as an aggregated API server must tell: the API server proxies each request with
// its front-proxy client certificate and names the user it authenticated in headers. The headers
// are believed only from a client whose certificate the request-header CA issued (and whose name
// is allowed, where names are listed), as the API server publishes them in
// kube-system/extension-apiserver-authentication. Pure, with the time passed in.
import type { X509Certificate } from 'node:crypto';
import { certificatesOf } from '../webhook/certificate-issuer.ts';

/** What the API server's front proxy is trusted by: the request-header settings it publishes. */
export interface FrontProxyTrust {
  authorities: X509Certificate[];
  /** Common names of the client certificates allowed; empty: any the CAs issued. */
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface RequestUser {
  name: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export class FrontProxyTrustMissingError extends Error {
  override readonly name = 'FrontProxyTrustMissingError';
}

/** From the ConfigMap's data; throws FrontProxyTrustMissingError when the API server publishes no request-header CA. */
export function frontProxyTrust(data: Readonly<Record<string, string>>): FrontProxyTrust {
  const ca = data['requestheader-client-ca-file'];
  if (!ca)
    throw new FrontProxyTrustMissingError(
      'kube-system/extension-apiserver-authentication has no requestheader-client-ca-file: the API server runs without --requestheader-client-ca-file, so it cannot call an aggregated API',
    );
  const list = (key: string): string[] => {
    const text = data[key];
    return text ? (JSON.parse(text) as string[]) : [];
  };
  return {
    authorities: certificatesOf(ca),
    allowedNames: list('requestheader-allowed-names'),
    usernameHeaders: list('requestheader-username-headers'),
    groupHeaders: list('requestheader-group-headers'),
    extraHeaderPrefixes: list('requestheader-extra-headers-prefix'),
  };
}

/**
 * The user the API server names, or why the request is not believed to come from it. `headers`
 * by lower-case name, each with all its values (a user's groups come in one header each).
 */
export function authenticate(
  trust: FrontProxyTrust,
  client: X509Certificate | undefined,
  headers: Readonly<Record<string, readonly string[] | undefined>>,
  now: Date,
): { user: RequestUser } | { refused: string } {
  if (!client) return { refused: 'no client certificate: only the API server may call this API' };
  const issued = trust.authorities.some((ca) => client.checkIssued(ca) && client.verify(ca.publicKey));
  if (!issued) return { refused: 'the client certificate was not issued by the request-header CA' };
  if (now < new Date(client.validFrom) || now > new Date(client.validTo))
    return { refused: 'the client certificate is not valid now' };
  const commonName = /^CN=(.*)$/m.exec(client.subject)?.[1];
  if (trust.allowedNames.length > 0 && !trust.allowedNames.includes(commonName ?? ''))
    return { refused: `the client certificate's name ${commonName ?? '(none)'} is not an allowed request-header name` };
  const values = (name: string): readonly string[] => headers[name.toLowerCase()] ?? [];
  const name = trust.usernameHeaders.flatMap(values)[0];
  if (!name) return { refused: 'the request names no user' };
  const extra: Record<string, string[]> = {};
  for (const prefix of trust.extraHeaderPrefixes.map((p) => p.toLowerCase()))
    for (const header of Object.keys(headers))
      if (header.startsWith(prefix))
        (extra[decodeURIComponent(header.slice(prefix.length))] ??= []).push(...values(header));
  return { user: { name, groups: trust.groupHeaders.flatMap(values), extra } };
}
