/**
 * npm run test:chaos — the full kill-anywhere run: 2,000 channels, 20 SIGKILLs (see kill-anywhere.ts).
 * Options: --channels N, --kills N, --nonce-window-ms N, --postgres-url URL (the bot's store in a schema of its own
 * in that database, e.g. postgres://postgres@127.0.0.1:5432/postgres, instead of a SQLite file). Ends with one
 * `chaos:` line; exits 1 unless it is clean.
 */
import { parseArgs } from 'node:util';
import { runChaos } from './kill-anywhere.ts';

const { values } = parseArgs({
  options: {
    channels: { type: 'string', default: '2000' },
    kills: { type: 'string', default: '20' },
    'nonce-window-ms': { type: 'string', default: '2000' },
    'postgres-url': { type: 'string' },
  },
});
const whole = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`test:chaos: --${name} must be a whole number of 1 or more, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};
const report = await runChaos({
  channels: whole('channels', values.channels),
  kills: whole('kills', values.kills),
  nonceWindowMs: whole('nonce-window-ms', values['nonce-window-ms']),
  ...(values['postgres-url'] ? { postgresUrl: values['postgres-url'] } : {}),
  log: (line) => process.stdout.write(`chaos: … ${line}\n`),
});
const kinds = Object.entries(report.killsByKind).map(([kind, count]) => `${kind}=${count}`).join(' ');
process.stdout.write(
  `chaos: ${kinds} restarts_after_nonce_window=${report.restartsAfterWindow} posted_but_unrecorded_at_kill=${report.leftPostedButUnrecorded} store_writes_cut=${report.storeWritesCut} ` +
    `wrong_records=${report.wrongRecords} subscriptions_lost=${report.subscriptionsLost} integrity=${report.integrity} seconds=${report.seconds.toFixed(0)}` +
    (report.logDir ? ` logs=${report.logDir}` : '') +
    '\n',
);
process.stdout.write(`chaos: kills=${report.kills} channels=${report.channels} missing=${report.missing} duplicates=${report.duplicates}\n`);
const clean =
  report.missing + report.duplicates + report.wrongRecords + report.subscriptionsLost === 0 &&
  report.integrity === 'ok' &&
  report.storeWritesCut === report.killsByKind['in-store-write'];
process.exitCode = clean ? 0 : 1;
