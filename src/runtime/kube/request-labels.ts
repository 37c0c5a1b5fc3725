// How the API server names a request in its own metrics and audit log, so that our counts read
// the same as its own.

/** The API server's verb and resource of a request; the resource carries its subresource, e.g. deployments/scale. */
export function requestLabels(method: string, url: string): { verb: string; resource: string } {
  const { pathname, searchParams } = new URL(url);
  const segments = pathname.split('/').filter(Boolean);
  // /api/v1/... or /apis/group/version/..., possibly behind a proxy's prefix.
  const api = segments.findIndex((s) => s === 'api' || s === 'apis');
  let parts = api < 0 ? [] : segments.slice(api + (segments[api] === 'api' ? 2 : 3));
  // namespaces/NAME/status and namespaces/NAME/finalize are a namespace's own subresources.
  if (parts[0] === 'namespaces' && parts.length >= 3 && parts[2] !== 'status' && parts[2] !== 'finalize')
    parts = parts.slice(2);
  const [resource = '', name, subresource] = parts;
  const resourceLabel = subresource ? `${resource}/${subresource}` : resource;
  const verbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };
  let verb = verbs[method] ?? method.toLowerCase();
  if (method === 'GET') verb = searchParams.get('watch') === 'true' ? 'watch' : name || !resource ? 'get' : 'list';
  if (method === 'DELETE') verb = name ? 'delete' : 'deletecollection';
  return { verb, resource: resourceLabel };
}
