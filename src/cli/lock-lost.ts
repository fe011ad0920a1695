import { singleLine } from '../config/message-text.ts';

/**
 * A bot that lost its store's lock (and could not take it back at once) stops at once: another bot may hold the
 * lock now, and two bots on one store would each write and post. Nothing more is written or posted: the process
 * ends here, with one line saying why and exit code 1, so a service manager starts it again, and the new process
 * either takes the lock or is refused as any second bot is. A post cut off on its way is found again by the next
 * bot (the delivery record, the look in the channel and the nonce), as after a crash.
 */
export function stopOnLostLock(reason: string): void {
  process.stderr.write(`wotd-bot start: ${singleLine(reason, 600)}; stopping now so that two bots never write or post on one store\n`);
  process.exit(1);
}
