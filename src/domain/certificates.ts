// The certificates a connection's Secrets hold, as plain data: what the controller and the workers
// read (their client certificates, the CAs they verify the server with), named by where each was
// found and by its public names and dates, never by its bytes. Pure.

/** One certificate of a Secret's key (a PEM bundle holds several). */
export interface ReadCertificate {
  /** `namespace/name` of the Secret. */
  secret: string;
  key: string;
  /** The connection's field that names the Secret: mutualTLSSecretRef, workerAuth.mutualTLSSecretRef, tls.caCertSecretRef. */
  field: string;
  /** A CA (basic constraints), else a client certificate or one of its chain. */
  authority: boolean;
  /** As `CN=…, O=…`; empty when it has none. */
  subject: string;
  /** Hexadecimal, as the certificate says: tells apart two of one subject (an old CA and its successor). */
  serialNumber: string;
  notAfter: Date;
}

/** Valid past the warning's lead time; Expiring within it; Expired once past its not-after time. */
export type CertificateState = 'Valid' | 'Expiring' | 'Expired';

/** What a status remembers of each certificate: the state it was last said to be in. */
export interface CertificateRecord {
  secret: string;
  key: string;
  subject: string;
  serialNumber: string;
  /** ISO 8601. */
  notAfter: string;
  state: CertificateState;
}
