/**
 * A writer process for the cross-process test: opens the subscription store from the settings as the bot does
 * (REDIS_URL, REDIS_KEY_PREFIX), prints "ready", runs hammer() when a line arrives on stdin, and prints its result
 * as one JSON line. Arguments: NAME LIMIT CHANNELS ROUNDS.
 */
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config/settings.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { storeLocation } from '../../src/store/open-store.ts';
import { hammer } from './hammer.ts';

const [name = 'p', limit = '5', channels = '10', rounds = '10'] = process.argv.slice(2);
const store = await SubscriptionStore.open(storeLocation(loadConfig()));
const input = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise((go) => input.once('line', go));
input.close();
const result = await hammer(store, name, { limit: Number(limit), channels: Number(channels), rounds: Number(rounds) });
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
