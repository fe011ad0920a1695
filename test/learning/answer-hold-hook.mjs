/**
 * Preloaded into a bot process by answer-kill.test.ts (`node --import <this file> bin/wotd-bot.js start`): it stops
 * the answer to one channel's daily quiz at one step, so the test can kill the process there. Nothing of the bot's
 * own code is changed; the hook sits under it, in the store clients' statement calls (sqlite3's Database#all, pg's
 * Client#query, ioredis' Redis#sendCommand).
 *
 * The steps of an answer are the learning store's statements from its read of that channel's quiz (outside a
 * transaction) on: on SQL, those naming a learning table, and BEGIN / COMMIT / ROLLBACK; on Redis, commands on the
 * channel's learning keys, from its HGETALL of the quiz.
 *
 * WOTD_TEST_ANSWER_HOLD=<channel id>:<step>:<before|after>  stops the answer there for good: the statement is never
 *   run (before), or its result never handed back (after). The process lives on (the interaction is deferred), until
 *   the test kills it.
 * WOTD_TEST_ANSWER_TRACE=<channel id>  names each step of that channel's answer.
 * Both write `answer-hold: …` lines on stderr.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const say = (line) => process.stderr.write(`answer-hold: ${line}\n`);
const never = () => new Promise(() => undefined);

/** Connections inside a transaction: a read of the quiz there is the answer's own, not a new answer's first step. */
const inTransaction = new WeakSet();
/**
 * SQLite connections that ran a learning statement: their BEGIN and COMMIT are the learning store's (the file's other
 * connections write the store's other records). A PostgreSQL pool's connections serve everything, and the learning
 * store's transaction may start on one that ran nothing of it yet: there every BEGIN and COMMIT counts.
 */
const learningConnections = new WeakSet();

function watcher(setting, traced) {
  if (!setting) return null;
  const [channel, step, when] = setting.split(':');
  let count = 0;
  return {
    /** 'go', or where to stop this statement ('before' or 'after'). */
    judge(kind, self, text, parameters) {
      const mentions = parameters.some((value) => String(value).includes(channel));
      const opens =
        kind === 'redis' ? mentions && /^hgetall /i.test(text) : mentions && /FROM \S*wotd_learning_quizzes/.test(text) && !inTransaction.has(self);
      const control = /^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(text) && (kind === 'pg' || learningConnections.has(self));
      const counted = kind === 'redis' ? mentions && text.includes('learning:') : /wotd_learning_/.test(text) || control;
      // A trace names each answer's steps from 1; a hold counts the first answer's only (the process dies in it).
      if (opens && (count === 0 || traced)) count = 1;
      else if (count > 0 && counted) count += 1;
      else return 'go';
      const shown = text.replace(/\s+/g, ' ').trim().slice(0, 90);
      if (traced) say(`step ${count} of ${channel}: ${shown}`);
      if (traced || count !== Number(step)) return 'go';
      say(`holding ${channel} ${when} step ${count}: ${shown}`);
      return when === 'before' ? 'before' : 'after';
    },
  };
}

const watchers = [watcher(process.env.WOTD_TEST_ANSWER_HOLD, false), watcher(process.env.WOTD_TEST_ANSWER_TRACE, true)].filter(Boolean);
const judge = (kind, self, text, parameters) => {
  if (kind !== 'redis' && /^\s*BEGIN/i.test(text)) inTransaction.add(self);
  if (/wotd_learning_/.test(text)) learningConnections.add(self);
  let verdict = 'go';
  for (const one of watchers) {
    const said = one.judge(kind, self, text, parameters);
    if (said !== 'go') verdict = said;
  }
  if (kind !== 'redis' && /^\s*(COMMIT|ROLLBACK)/i.test(text)) inTransaction.delete(self);
  return verdict;
};

if (watchers.length > 0) {
  const sqlite3 = require('sqlite3');
  const all = sqlite3.Database.prototype.all;
  sqlite3.Database.prototype.all = function (sql, ...rest) {
    const callback = typeof rest.at(-1) === 'function' ? rest.pop() : undefined;
    const verdict = judge('sqlite', this, String(sql), rest.flat());
    if (verdict === 'before') return this;
    if (verdict === 'after') return all.call(this, sql, ...rest, () => undefined);
    return callback ? all.call(this, sql, ...rest, callback) : all.call(this, sql, ...rest);
  };

  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : String(config?.text ?? '');
    const parameters = Array.isArray(values) ? values : Array.isArray(config?.values) ? config.values : [];
    const verdict = judge('pg', this, text, parameters);
    const done = typeof values === 'function' ? values : callback;
    if (verdict === 'before') return done ? undefined : never();
    if (verdict === 'after') {
      if (done) return query.call(this, config, Array.isArray(values) ? values : undefined, () => undefined);
      return query.call(this, config, values).then(never);
    }
    return query.call(this, config, values, callback);
  };

  const { Redis } = require('ioredis');
  const sendCommand = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (command, stream) {
    const args = (command?.args ?? []).map(String);
    const verdict = judge('redis', this, `${command?.name ?? ''} ${args.join(' ')}`, args);
    if (verdict === 'before') return never();
    const sent = sendCommand.call(this, command, stream);
    return verdict === 'after' ? sent.then(never) : sent;
  };
}
