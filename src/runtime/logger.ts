// The controller's logs: pino, one JSON line per entry on stderr, or pino-pretty's one line per
// entry for a person at a terminal. Everything logs through the narrow Logger below, so that a test
// can pass one that records; each reconcile logs through a child carrying its object and its id.
// Fields are names, IDs and error messages, never whole objects: a Secret or a gate input is
// never a field.
import { pino, stdTimeFunctions } from 'pino';

export type LogFields = Record<string, unknown>;

/** pino's calling convention: the fields, when there are any, before the message. */
export interface LogMethod {
  (message: string): void;
  (fields: LogFields, message: string): void;
}

export interface Logger {
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
  /** A logger that adds these fields to each of its lines. */
  child(bindings: LogFields): Logger;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: pretty when stderr is a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where the lines go; default stderr, written synchronously so that a line logged just before process.exit is kept. */
export interface LogDestination {
  write(line: string): void;
}

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  destination?: LogDestination;
  /** Whether a person reads the destination (default: whether stderr is a terminal): picks `auto`'s format and pretty's colours. */
  terminal?: boolean;
}

/** The JSON logger at once; a pretty one once pino-pretty is loaded, which only pretty output pays for. */
export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const terminal = options.terminal ?? process.stderr.isTTY;
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  if (options.format === 'json' || (options.format === 'auto' && !terminal))
    return jsonLogger(options.level, destination);
  // Through the default export (CommonJS's module.exports): the bundle's chunk of pino-pretty has no other.
  const { prettyFactory } = (await import('pino-pretty')).default;
  // No field is printed apart (pino-pretty's default for `error`): one entry, one line.
  const prettify = prettyFactory({
    colorize: terminal,
    singleLine: true,
    errorLikeObjectKeys: [],
    translateTime: 'SYS:HH:MM:ss.l',
  });
  // pino-pretty's stream writes asynchronously; formatting each line in place keeps writes synchronous.
  const logger: Logger = pino(
    { level: options.level, base: undefined },
    { write: (line: string) => destination.write(prettify(line)) },
  );
  return logger;
}

/** JSON lines: `level` (its name), `time` (ISO 8601), the bindings and fields, and `msg`. */
export function jsonLogger(level: LogLevel, destination: LogDestination): Logger {
  return pino(
    {
      level,
      // The pod's name and the process id say nothing that Kubernetes does not already attach.
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

function nothing(): void {}

/** Logs nothing: for a controller run inside a test or a benchmark. */
export const silentLogger: Logger = {
  error: nothing,
  warn: nothing,
  info: nothing,
  debug: nothing,
  child: () => silentLogger,
};
