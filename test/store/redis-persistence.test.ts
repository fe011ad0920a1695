import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { reportRedisPersistence } from '../../src/store/redis-persistence.ts';
import { captureLogger } from '../schedule/helpers.ts';
import { describeRedis, redisClient, redisTestUrl } from '../support/redis.ts';

/**
 * Where the durable data stays in Redis, the bot reads the server's persistence settings at start and says in one
 * line whether subscriptions and delivery records would survive a Redis restart. This machine's Redis keeps nothing
 * on disk, so there the warning shows; what the server says is read here independently, for a server that does.
 */

const WARNING =
  'Redis keeps nothing on disk (appendonly no, no save points): a Redis restart loses every subscription and delivery record, and would post the day again. Turn on appendonly (or save points) on that Redis, or keep the data in PostgreSQL (STORE_URL=postgres://…; migrate-store copies it)';

describeRedis("Redis's persistence at start", () => {
  it('is read with CONFIG GET, and a Redis that keeps nothing on disk is warned about in one line', async () => {
    const redis = await redisClient();
    const appendonly = (await redis.configGet('appendonly')).appendonly ?? '';
    const save = (await redis.configGet('save')).save ?? '';
    const durable = appendonly === 'yes' || save.trim() !== '';
    const { logger, lines } = captureLogger();

    const persistence = await reportRedisPersistence(redisTestUrl ?? '', logger);
    expect(persistence).toEqual({ known: true, appendonly, save, durable });
    expect(lines).toHaveLength(1);
    if (durable) expect(lines[0]).toMatchObject({ level: 30, msg: 'Redis keeps the store on disk', appendonly, save });
    else expect(lines[0]).toMatchObject({ level: 40, msg: WARNING, redis: redisTestUrl, appendonly, save });
  });

  it('is unknown, said in one info line and not as an error, where the server refuses CONFIG', async () => {
    const redis = await redisClient();
    const user = `wotd-test-${randomBytes(6).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    // A user allowed everything but CONFIG, as many managed servers set them up.
    await redis.sendCommand(['ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-config']);
    try {
      const { logger, lines } = captureLogger();
      const url = new URL(redisTestUrl ?? '');
      url.username = user;
      url.password = password;
      const persistence = await reportRedisPersistence(url.href, logger);
      expect(persistence).toMatchObject({ known: false, reason: expect.stringMatching(/^NOPERM /) });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 30,
        msg: "could not read Redis's persistence settings: whether subscriptions and delivery records survive a Redis restart is unknown",
        redis: expect.stringMatching(/^redis:\/\/\*\*\*@/),
      });
      expect(JSON.stringify(lines)).not.toContain(password);
    } finally {
      await redis.sendCommand(['ACL', 'DELUSER', user]);
    }
  });
});
