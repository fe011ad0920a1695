import { pathsList } from 'discord-api-spec';
import { Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeSpecViolations, violationError } from '../spec-ledger.ts';
import { restFor, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';
import { RouteTable } from './route-table.ts';
import { defineRoutes } from './routes.ts';
import { SpecCheck } from './spec-check.ts';
import { DEVIATIONS } from './spec-deviations.ts';
import { CHECKED_DISPATCHES } from './spec-gateway.ts';
import { NO_BODY, issuesOf, specSchemas, StrictSchemas } from './spec-schemas.ts';
import { operation, operationFor, SPEC_OPERATIONS, specPathOf, type Method } from './spec-routes.ts';
import { World } from './world.ts';

describe('the spec mapping', () => {
  const table = new RouteTable();
  defineRoutes(table, new World());

  it('maps every route the server registers to an operation of the same path and method in the spec', () => {
    expect(table.all.length).toBeGreaterThan(20);
    for (const route of table.all) {
      const method = route.method.toLowerCase() as Method;
      const path = specPathOf(route.template);
      expect(pathsList[method], `${route.method} ${route.template}`).toContain(path);
      expect(operationFor(route.method, route.template), `${route.method} ${route.template} has no entry in spec-routes.ts`).toBeDefined();
    }
  });

  it('maps nothing the server does not serve', () => {
    const served = new Set(table.all.map((route) => `${route.method} ${specPathOf(route.template)}`));
    expect(SPEC_OPERATIONS.map((op) => op.key).filter((key) => !served.has(key))).toEqual([]);
  });

  it('refuses at compile time a schema that is not the spec’s for that place', () => {
    // Each call is wrong in one way; `tsc --noEmit` fails when operation() stops refusing it.
    // @ts-expect-error a role where the spec answers a user
    operation('/users/{user_id}', 'get', { body: NO_BODY, responses: { '200': specSchemas.GuildRoleResponseSchema } });
    // @ts-expect-error the spec answers a thread with 201, not 200
    operation('/channels/{channel_id}/messages/{message_id}/threads', 'post', { body: specSchemas.CreateTextThreadWithMessageRequestSchema, responses: { '200': specSchemas.ThreadResponseSchema } });
    // @ts-expect-error a query parameter the spec does not have
    operation('/guilds/{guild_id}', 'get', { body: NO_BODY, query: {}, responses: { '200': specSchemas.GuildWithCountsResponseSchema } });
    // @ts-expect-error a body where the spec takes none
    operation('/gateway', 'get', { body: specSchemas.GatewayResponseSchema, responses: { '200': specSchemas.GatewayResponseSchema } });
  });
});

describe('the strict schemas', () => {
  const strict = new StrictSchemas({ deviations: [], onDeviation: () => undefined });

  it('refuse an unknown key at any depth, through arrays, unions and lazy references, naming the field', () => {
    const body = { content: 'x', components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'a', label: 'Go', colour: 1 }] }] };
    expect(issuesOf(strict.strict(specSchemas.MessageCreateRequestSchema), body, 'body')).toEqual([
      { field: 'body.components[0].components[0].colour', message: 'not in the spec (unknown key)' },
    ]);
    // The package's own schemas stay as they were (they strip unknown keys).
    expect(specSchemas.MessageCreateRequestSchema.safeParse(body).success).toBe(true);
  });

  it('explain a union no option fits by the option whose type matched', () => {
    const body = { components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'x'.repeat(101), label: 'Go' }] }] };
    expect(issuesOf(strict.strict(specSchemas.MessageCreateRequestSchema), body, 'body')).toEqual([
      { field: 'body.components[0].components[0].custom_id', message: 'Too big: expected string to have <=100 characters' },
    ]);
  });
});

describe('the allow-list (spec-deviations.ts)', () => {
  for (const deviation of DEVIATIONS) {
    it(`${deviation.id}: the spec still rejects its example, and the entry lets it through`, () => {
      const first = deviation.at[0];
      if (!first) throw new Error(`${deviation.id} names no place`);
      const plain = new StrictSchemas({ deviations: [], onDeviation: () => undefined });
      expect(issuesOf(plain.strict(specSchemas[first.schema]), deviation.example, 'example')).not.toEqual([]);
      const used: string[] = [];
      const patched = new StrictSchemas({ deviations: [deviation], onDeviation: (id) => used.push(id) });
      expect(issuesOf(patched.strict(specSchemas[first.schema]), deviation.example, 'example')).toEqual([]);
      expect(used).toContain(deviation.id);
    });
  }

  it('names each place once', () => {
    const places = DEVIATIONS.flatMap((d) => d.at.map((at) => `${at.schema}.${at.field ?? '*'}`));
    expect(new Set(places).size).toBe(places.length);
    expect(new Set(DEVIATIONS.map((d) => d.id)).size).toBe(DEVIATIONS.length);
  });
});

describe('the spec check at the server', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;
  let general: string;
  const raw = (path: string, init: { method: string; body?: unknown }) =>
    fetch(`${discord.apiUrl}/v10${path}`, {
      method: init.method,
      headers: { Authorization: `Bot ${discord.token}`, 'Content-Type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });

  beforeEach(async () => {
    discord = await startDiscordServer();
    guild = discord.addGuild();
    general = guild.channelId('general');
  });
  afterEach(async () => {
    discord.rewriteResponse = null;
    await discord.close();
  });

  it('catches a malformed request the server accepted, naming route, field and message, and fails the test', async () => {
    const posted = await raw(`/channels/${general}/messages?colour=red`, { method: 'POST', body: { content: 'hi', colour: 3 } });
    expect(posted.status).toBe(200);
    const unknownChannel = await raw('/channels/general/messages', { method: 'GET' });
    expect(unknownChannel.status).toBe(404);
    const found = takeSpecViolations().filter((v) => v.direction === 'request');
    expect(found).toEqual([
      { route: 'POST /channels/{channel_id}/messages', direction: 'request', field: 'query.colour', message: 'not in the spec (unknown query parameter)' },
      { route: 'POST /channels/{channel_id}/messages', direction: 'request', field: 'body.colour', message: 'not in the spec (unknown key)' },
      { route: 'GET /channels/{channel_id}/messages', direction: 'request', field: 'path.channel_id', message: 'Invalid string: must match pattern /^(0|[1-9][0-9]*)$/' },
    ]);
    // What process-setup.ts's afterEach does with them: fail, naming each.
    await raw(`/channels/${general}/messages`, { method: 'POST', body: { content: 'again', colour: 3 } });
    expect(violationError(takeSpecViolations(), 'during this test')?.message).toMatch(/POST \/channels\/\{channel_id\}\/messages request: body\.colour: not in the spec \(unknown key\)$/m);
  });

  it('fails a call of a route the server does not serve, telling a Discord route it lacks from one Discord lacks', async () => {
    expect((await raw(`/channels/${general}/pins`, { method: 'GET' })).status).toBe(404);
    expect((await raw('/channels/made-up', { method: 'POST', body: {} })).status).toBe(405);
    expect(takeSpecViolations()).toEqual([
      { route: `GET /channels/${general}/pins`, direction: 'request', field: 'route', message: 'the local server does not serve this Discord route (add it, and its entry in spec-routes.ts)' },
      { route: 'POST /channels/made-up', direction: 'request', field: 'route', message: "no such route in Discord's API" },
    ]);
  });

  it('leaves a body the server refused as Discord would (400 Invalid Form Body) to that answer', async () => {
    const refused = await raw(`/channels/${general}/messages`, { method: 'POST', body: { content: 'x'.repeat(4001), colour: 3 } });
    expect([refused.status, ((await refused.json()) as { code: number }).code]).toEqual([400, 50035]);
    expect(takeSpecViolations()).toEqual([]);
  });

  it('catches a malformed answer: a route made to answer what Discord never would', async () => {
    await restFor(discord).post(Routes.channelMessages(general), { body: { content: 'as the server answers it' } });
    expect(takeSpecViolations().filter((v) => v.field === 'body.pinned' || v.field === 'body.colour')).toEqual([]);
    discord.rewriteResponse = (route, status, body) =>
      route === 'POST /channels/:channel_id/messages' && typeof body === 'object' ? { ...body, pinned: 'no', colour: 3 } : body;
    await restFor(discord).post(Routes.channelMessages(general), { body: { content: 'hi' } });
    const found = takeSpecViolations().filter((v) => v.field === 'body.pinned' || v.field === 'body.colour');
    expect(found).toEqual([
      { route: 'POST /channels/{channel_id}/messages', direction: 'response', status: 200, field: 'body.pinned', message: 'Invalid input: expected boolean, received string' },
      { route: 'POST /channels/{channel_id}/messages', direction: 'response', status: 200, field: 'body.colour', message: 'not in the spec (unknown key)' },
    ]);
  });

  it('checks nothing when a benchmark turns it off (specCheck: false), and still answers as before', async () => {
    const unchecked = await startDiscordServer({ specCheck: false });
    try {
      const channel = unchecked.addGuild().channelId('general');
      const posted = await fetch(`${unchecked.apiUrl}/v10/channels/${channel}/messages?colour=red`, {
        method: 'POST',
        headers: { Authorization: `Bot ${unchecked.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'hi', colour: 3 }),
      });
      expect(posted.status).toBe(200);
      const check = new SpecCheck(false);
      check.dispatch('GUILD_DELETE', { id: 'x', unavailable: 'yes' });
      expect(takeSpecViolations()).toEqual([]);
    } finally {
      await unchecked.close();
    }
  });

  it('checks error answers too, against the spec’s error body', async () => {
    discord.rewriteResponse = (route, status, body) => (status === 200 && route.startsWith('GET /guilds/') ? { message: 'nope' } : body);
    await restFor(discord).get(Routes.guild(guild.id));
    expect(takeSpecViolations()).toContainEqual(expect.objectContaining({ route: 'GET /guilds/{guild_id}', status: 200, field: 'body.id' }));
  });
});

describe('the gateway check', () => {
  it('has a schema for every dispatch the server sends, and refuses a malformed one', () => {
    const check = new SpecCheck();
    check.dispatch('GUILD_DELETE', { id: 'x', unavailable: 'yes', extra: 1 });
    check.dispatch('TYPING_START', {});
    expect(takeSpecViolations()).toEqual([
      { route: 'GATEWAY GUILD_DELETE', direction: 'gateway', field: 'd.id', message: expect.stringMatching(/pattern/) },
      { route: 'GATEWAY GUILD_DELETE', direction: 'gateway', field: 'd.unavailable', message: 'Invalid input: expected boolean, received string' },
      { route: 'GATEWAY GUILD_DELETE', direction: 'gateway', field: 'd.extra', message: 'not in the spec (unknown key)' },
      { route: 'GATEWAY TYPING_START', direction: 'gateway', field: 't', message: 'spec-gateway.ts has no schema for this dispatch' },
    ]);
    expect(CHECKED_DISPATCHES).toEqual(expect.arrayContaining(['READY', 'GUILD_CREATE', 'MESSAGE_CREATE', 'INTERACTION_CREATE']));
  });
});
