// The keys a TemporalConnection's mutual-TLS Secret holds, as its docs name them: the controller
// reads them, the worker Pods mount them, and the status names them when Temporal refuses them.
export const MUTUAL_TLS_KEYS = { certificate: 'tls.crt', privateKey: 'tls.key', ca: 'ca.crt' } as const;
