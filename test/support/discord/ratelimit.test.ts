import { setTimeout as sleep } from 'node:timers/promises';
import { Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { restFor, startDiscordServer, type DiscordServer, type RecordedRequest } from './index.ts';

/** Accepted (not globally limited) requests per epoch second, straight from the recording. */
function acceptedPerSecond(requests: RecordedRequest[]): number[] {
  const counts = new Map<number, number>();
  for (const r of requests) {
    if (!r.countedGlobally) continue;
    const second = Math.floor(r.at / 1000);
    counts.set(second, (counts.get(second) ?? 0) + 1);
  }
  return [...counts.values()];
}

function fanOut(channelCount: number, perChannel: number): { channel: number; content: string }[] {
  const jobs: { channel: number; content: string }[] = [];
  for (let i = 0; i < perChannel; i += 1) for (let c = 0; c < channelCount; c += 1) jobs.push({ channel: c, content: `word ${c}/${i}` });
  return jobs;
}

describe('fake Discord rate limits', () => {
  let discord: DiscordServer | undefined;
  afterEach(async () => {
    await discord?.close();
    discord = undefined;
  });

  async function withChannels(count: number, options: Parameters<typeof startDiscordServer>[0] = {}): Promise<{ server: DiscordServer; channels: string[] }> {
    const server = await startDiscordServer(options);
    discord = server;
    const guild = server.addGuild({ channels: Array.from({ length: count }, (_, i) => ({ name: `c${i}` })) });
    return { server, channels: guild.channels.map((c) => c.id) };
  }

  it('a burst of 200 messages over 40 channels through discord.js REST never passes 50 per second', async () => {
    const { server, channels } = await withChannels(40);
    const rest = restFor(server);
    await Promise.all(fanOut(40, 5).map((job) => rest.post(Routes.channelMessages(channels[job.channel] ?? ''), { body: { content: job.content } })));
    expect(server.posts()).toHaveLength(200);
    expect(Math.max(...acceptedPerSecond(server.requests))).toBeLessThanOrEqual(50);
    expect(server.stats().maxPostsPerSecond).toBeLessThanOrEqual(50);
    const perChannel = channels.map((id) => server.messagesIn(id).length);
    expect(new Set(perChannel)).toEqual(new Set([5]));
  });

  it('answers a client that ignores the global limit with 429s that discord.js retries: every message posted exactly once', async () => {
    const { server, channels } = await withChannels(40);
    const rest = restFor(server, { globalRequestsPerSecond: 10_000 });
    await Promise.all(fanOut(40, 5).map((job) => rest.post(Routes.channelMessages(channels[job.channel] ?? ''), { body: { content: job.content } })));
    const stats = server.stats();
    expect(stats.global429).toBeGreaterThan(0);
    expect(stats.maxAcceptedPerSecond).toBeLessThanOrEqual(50);
    expect(Math.max(...acceptedPerSecond(server.requests))).toBeLessThanOrEqual(50);
    const contents = channels.flatMap((id) => server.messagesIn(id).map((m) => m.content));
    expect(contents).toHaveLength(200);
    expect(new Set(contents).size).toBe(200);
    const limited = server.requests.find((r) => r.limited === 'global');
    expect(limited?.status).toBe(429);
    expect(limited?.response).toMatchObject({ message: 'You are being rate limited.', global: true });
  });

  it('sends Discord’s headers: a global 429 carries Retry-After, X-RateLimit-Global and scope; buckets carry X-RateLimit-*', async () => {
    const { server, channels } = await withChannels(1, { globalLimitPerSecond: 5 });
    const url = `${server.apiUrl}/v10/channels/${channels[0] ?? ''}/messages`;
    const post = (content: string) =>
      fetch(url, { method: 'POST', headers: { Authorization: `Bot ${server.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ content }) });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => post(`m${i}`)));
    const global = responses.filter((r) => r.headers.get('x-ratelimit-global') === 'true');
    expect(global.length).toBeGreaterThan(0);
    const first = global[0];
    expect(first?.status).toBe(429);
    expect(first?.headers.get('x-ratelimit-scope')).toBe('global');
    expect(Number(first?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await first?.json()) as { retry_after: number; global: boolean };
    // Discord's rate-limit answer: seconds with a fraction, and the error `code` its description requires.
    expect(body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: true, code: 0 });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(body.retry_after).toBeLessThanOrEqual(1);
    expect(first?.headers.get('retry-after')).toBe(String(Math.ceil(body.retry_after)));
    expect(first?.headers.get('x-ratelimit-limit')).toBeNull();
    expect(Math.max(...acceptedPerSecond(server.requests))).toBeLessThanOrEqual(5);

    const ok = responses.find((r) => r.status === 200);
    expect(ok?.headers.get('x-ratelimit-limit')).toBe('5');
    expect(ok?.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]+$/);
    expect(Number(ok?.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
    expect(Number(ok?.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 10);
  });

  it('limits each channel to 5 messages per 5 s and reports the bucket 429 as Discord does', async () => {
    const { server, channels } = await withChannels(2);
    const post = (channel: string, content: string) =>
      fetch(`${server.apiUrl}/v10/channels/${channel}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bot ${server.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ content }),
      });
    const [a = '', b = ''] = channels;
    const results = [];
    for (let i = 0; i < 6; i += 1) results.push(await post(a, `a${i}`));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(results.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
    const limited = results[5];
    expect(limited?.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited?.headers.get('x-ratelimit-global')).toBeNull();
    const body = (await limited?.json()) as { retry_after: number };
    expect(body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false, code: 0 });
    expect(body.retry_after).toBeGreaterThan(4);
    expect(body.retry_after).toBeLessThanOrEqual(5);
    expect(limited?.headers.get('retry-after')).toBe(String(Math.ceil(body.retry_after)));
    expect(limited?.headers.get('x-ratelimit-bucket')).toBe(results[0]?.headers.get('x-ratelimit-bucket'));
    // Another channel has its own bucket under the same bucket id.
    const other = await post(b, 'b0');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-bucket')).toBe(results[0]?.headers.get('x-ratelimit-bucket'));
    expect(server.stats()).toMatchObject({ bucket429: 1, invalid: 1 });
    expect(server.messagesIn(a)).toHaveLength(5);
  });

  it('injects 429s of each scope as Discord sends them; a shared-resource 429 does not count as invalid', async () => {
    const { server, channels } = await withChannels(1);
    const url = `${server.apiUrl}/v10/channels/${channels[0] ?? ''}/messages`;
    const post = () => fetch(url, { method: 'POST', headers: { Authorization: `Bot ${server.token}`, 'Content-Type': 'application/json' }, body: '{"content":"x"}' });
    server.injectFault({ route: 'POST /channels/:id/messages', status: 429, rateLimit: { global: false, retryAfterMs: 1500, scope: 'shared' }, times: 1 });
    server.injectFault({ route: 'POST /channels/:id/messages', status: 429, rateLimit: { global: false, retryAfterMs: 2250 }, times: 1 });
    server.injectFault({ route: 'POST /channels/:id/messages', status: 429, rateLimit: { global: true, retryAfterMs: 400 }, times: 1 });
    const [shared, user, global] = [await post(), await post(), await post()];
    expect(await shared.json()).toEqual({ message: 'The resource is being rate limited.', retry_after: 1.5, global: false, code: 0 });
    expect([shared.headers.get('x-ratelimit-scope'), shared.headers.get('retry-after'), shared.headers.get('x-ratelimit-global')]).toEqual(['shared', '2', null]);
    expect(await user.json()).toEqual({ message: 'You are being rate limited.', retry_after: 2.25, global: false, code: 0 });
    expect([user.headers.get('x-ratelimit-scope'), user.headers.get('retry-after'), user.headers.get('x-ratelimit-remaining')]).toEqual(['user', '3', '0']);
    expect(await global.json()).toEqual({ message: 'You are being rate limited.', retry_after: 0.4, global: true, code: 0 });
    expect([global.headers.get('x-ratelimit-scope'), global.headers.get('retry-after'), global.headers.get('x-ratelimit-global')]).toEqual(['global', '1', 'true']);
    expect(server.stats()).toMatchObject({ bucket429: 2, global429: 1, invalid: 2 });
  });

  it('counts the global limit per token across REST clients: two that each keep to 20/s get 429s together, never more than 20/s pass', async () => {
    const { server, channels } = await withChannels(20, { globalLimitPerSecond: 20 });
    // Each client paces itself to the whole limit, as every process of a cluster's discord.js does on its own.
    const one = restFor(server, { globalRequestsPerSecond: 20 });
    const two = restFor(server, { globalRequestsPerSecond: 20 });
    // Start just after a second begins, so both bursts fall in one window of the limiter.
    await sleep(1000 - (Date.now() % 1000) + 20);
    await Promise.all(
      channels.flatMap((channel, i) => [
        one.post(Routes.channelMessages(channel), { body: { content: `one ${i}` } }),
        two.post(Routes.channelMessages(channel), { body: { content: `two ${i}` } }),
      ]),
    );
    const stats = server.stats();
    expect(stats.global429).toBeGreaterThan(0);
    expect(stats.maxAcceptedPerSecond).toBe(20);
    expect(Math.max(...acceptedPerSecond(server.requests))).toBe(20);
    const contents = channels.flatMap((id) => server.messagesIn(id).map((m) => m.content)).sort();
    expect(contents).toEqual([...channels.map((_, i) => `one ${i}`), ...channels.map((_, i) => `two ${i}`)].sort());
  });

  it('exempts interaction callbacks and webhooks from the global limit', async () => {
    const { server } = await withChannels(1, { globalLimitPerSecond: 1 });
    const rest = restFor(server, { globalRequestsPerSecond: 10_000 });
    await rest.get(Routes.gatewayBot());
    // A second bot-token request in the same window would be limited; the interaction routes are not counted.
    const bogus = await fetch(`${server.apiUrl}/v10/interactions/1/nope/callback`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"type":4}' });
    expect(bogus.status).toBe(404);
    expect(await bogus.json()).toMatchObject({ code: 10062 });
    expect(server.requests.filter((r) => r.limited === 'global').length).toBe(0);
    expect(server.stats().perSecond.reduce((n, s) => n + s.exempt, 0)).toBe(1);
  });
});
