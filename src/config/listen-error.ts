/**
 * A server that could not listen where it was told: the port is in use, needs privileges, or the address is not
 * this machine's. That is a setting to change, not a fault, so it is said in one line naming the setting (or flag)
 * and the port, with exit code 2 and no stack.
 */
export class ListenError extends Error {
  override readonly name: string = 'ListenError';

  constructor(
    message: string,
    /** The system's error code: EADDRINUSE, EACCES, EADDRNOTAVAIL, … */
    readonly code: string | undefined,
    readonly host: string,
    readonly port: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What the port and the address are called where the user set them: settings (METRICS_PORT) or flags (--port). */
export interface ListenNames {
  port: string;
  host: string;
  /** Said after "choose another" when the port is in use, e.g. "(--port 0 picks a free one)". */
  inUseAdvice?: string;
}

/** The one line for a failed listen, in the user's terms. */
export function listenFailureText(code: string | undefined, host: string, port: number, names: ListenNames, detail = ''): string {
  switch (code) {
    case 'EADDRINUSE':
      return `${names.port} ${port} is already in use on ${host}; choose another${names.inUseAdvice ? ` ${names.inUseAdvice}` : ''}`;
    case 'EACCES':
      return `${names.port} ${port}: not allowed to listen on ${host}:${port} (ports below 1024 need privileges); choose another`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `${names.host} ${host} is not an address of this machine; use e.g. 127.0.0.1 or 0.0.0.0`;
    default:
      return `could not listen on ${host}:${port} (${names.host}, ${names.port})${detail ? `: ${detail}` : ''}`;
  }
}
