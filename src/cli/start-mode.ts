import { NO_TOKEN_NO_TERMINAL } from '../config/message-text.ts';

/** Which transport `start` or `console` runs, or why it runs neither. */
export type StartMode = { kind: 'discord'; token: string } | { kind: 'console' } | { kind: 'refused'; reason: string };

/** Whether a person may be at this process: any of its standard streams is a terminal. */
export function atTerminal(streams: ReadonlyArray<{ isTTY?: boolean }> = [process.stdin, process.stdout, process.stderr]): boolean {
  return streams.some((stream) => stream.isTTY === true);
}

/**
 * The mode is never a silent guess where nobody can type. `console` runs the console on purpose (even with a token);
 * `start` runs Discord with a token, the console without one at a terminal, and refuses otherwise: a service
 * manager (systemd, pm2, a container) gives no terminal, and a console nobody can use would look healthy.
 */
export function startMode(command: 'start' | 'console', token: string | undefined, terminal: boolean): StartMode {
  if (command === 'console') return { kind: 'console' };
  if (token) return { kind: 'discord', token };
  return terminal ? { kind: 'console' } : { kind: 'refused', reason: NO_TOKEN_NO_TERMINAL };
}
