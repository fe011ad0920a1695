import { PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InteractionDone } from '../../src/replies/interaction-outcome.ts';
import { SOMETHING_WENT_WRONG, UNKNOWN_BUTTON, UNKNOWN_COMMAND } from '../../src/discord/router.ts';
import type { SlashCommand } from '../../src/replies/interactions.ts';
import { BASE, NO_PINGS, sentFor, startBotWorld, waitForSent, type BotWorld } from './bot-world.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { capturingLogger, SITE_URL, TODAY } from './world.ts';

/** Commands only this suite registers, to drive the router's failure paths through the real client. */
const testCommands: SlashCommand[] = [
  {
    data: new SlashCommandBuilder().setName('boom').setDescription('Throws before answering'),
    execute: async () => {
      throw new Error('kaboom at /srv/secret/handler.ts:42');
    },
  },
  {
    data: new SlashCommandBuilder().setName('boom-late').setDescription('Defers, then throws'),
    execute: async (context) => {
      await context.defer();
      throw new Error('late kaboom');
    },
  },
  {
    data: new SlashCommandBuilder().setName('boom-after').setDescription('Answers, then throws'),
    execute: async (context) => {
      await context.respond({ content: 'Here is your answer.' });
      throw new Error('kaboom after the answer');
    },
  },
  {
    data: new SlashCommandBuilder()
      .setName('perms')
      .setDescription('Lists what the bot may do in a channel')
      .addChannelOption((option) => option.setName('channel').setDescription('A channel').setRequired(true)),
    execute: async (context) => {
      const channel = context.options.getChannel('channel');
      const held = channel && context.botPermissionsIn ? await context.botPermissionsIn(channel.id) : new Set<string>();
      await context.respond({ content: [...held].sort().join(',') || 'none', ephemeral: true });
    },
  },
  {
    data: new SlashCommandBuilder().setName('silent').setDescription('Forgets to answer'),
    execute: async () => undefined,
  },
  {
    data: new SlashCommandBuilder().setName('legacy').setDescription('Sends buttons from older versions'),
    execute: (context) =>
      context.respond({
        content: 'Old buttons',
        buttons: [
          { customId: 'gone:1', label: 'Gone' },
          { customId: 'hist:not-a-date', label: 'Broken' },
          { customId: 'boom:1', label: 'Boom' },
        ],
      }),
    button: {
      prefix: 'boom',
      handle: async () => {
        throw new Error('button kaboom');
      },
    },
  },
  {
    data: new SlashCommandBuilder()
      .setName('inspect')
      .setDescription('Shows what the context saw')
      .addChannelOption((option) => option.setName('channel').setDescription('A channel'))
      .addRoleOption((option) => option.setName('role').setDescription('A role'))
      .addIntegerOption((option) => option.setName('count').setDescription('A number')),
    execute: (context) =>
      context.respond({
        content: JSON.stringify({
          invoker: context.invoker,
          channel: context.options.getChannel('channel'),
          role: context.options.getRole('role'),
          count: context.options.getInteger('count'),
          missing: context.options.getString('nothing'),
        }),
        ephemeral: true,
        mentionRoleIds: ['222222222222222222'],
      }),
  },
];

/** A command that waits for the test to let it answer, to catch stop() in the middle of an interaction. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
const gate = { entered: signal(), release: signal() };
testCommands.push({
  data: new SlashCommandBuilder().setName('slow').setDescription('Answers when the test says so'),
  execute: async (context) => {
    await context.defer();
    gate.entered.resolve();
    await gate.release.promise;
    await context.respond({ content: 'Finished.' });
  },
});

const retired: SlashCommand = {
  data: new SlashCommandBuilder().setName('retired').setDescription('Registered but no longer handled'),
  execute: async () => undefined,
};

let world: BotWorld;
const timings: InteractionDone[] = [];

beforeAll(async () => {
  world = await startBotWorld({ extraCommands: testCommands, registeredOnly: [retired], onInteractionDone: (timing) => timings.push(timing) });
});

afterAll(async () => {
  await world?.close();
});

function invoke(name: string, options: Record<string, string | number> = {}) {
  return world.discord.invokeCommand({ name, options, channelId: world.channelId });
}

function press(customId: string, messageId?: string) {
  return world.discord.pressButton({ customId, channelId: world.channelId, ...(messageId ? { messageId } : {}) });
}

const ephemeralReply = (content: unknown) => ({
  call: 'POST callback',
  body: { type: 4, data: { content, ...BASE, allowed_mentions: NO_PINGS, flags: 64 } },
});

describe('/wotd', () => {
  it('answers a cached entry at once: callback type 4 with the embed, and nothing can ping', async () => {
    await world.wotd.adapter.getEntry('2025-01-14');
    const handle = invoke('wotd', { date: '2025-01-14' });
    expect(await waitForSent(world.discord, handle, 1)).toEqual([
      {
        call: 'POST callback',
        body: {
          type: 4,
          data: {
            ...BASE,
            embeds: [
              {
                title: 'serendipity',
                url: 'https://wotd.example',
                description: '**noun** · /ˌsɛɹ.ənˈdɪp.ɪ.ti/\n\n*(historical)* The "happy" faculty of finding things by \\*chance\\*.',
                color: 0x5865f2,
                footer: { text: '2025-01-14 · Word of the Day from wotd.example' },
              },
            ],
            allowed_mentions: NO_PINGS,
          },
        },
      },
    ]);
    const shown = await handle.waitForResponse();
    expect(shown.ephemeral).toBe(false);
    expect(handle.callback?.status).toBe(204);
  });

  it('reads today, yesterday and both date formats', async () => {
    const titles: Record<string, string | undefined> = {};
    for (const date of ['', 'today', 'yesterday', '14-01-2025', '2025-01-18']) {
      const handle = invoke('wotd', date ? { date } : {});
      const shown = await handle.waitForResponse();
      titles[date || '(none)'] = shown.embeds[0]?.title as string | undefined;
    }
    expect(titles).toEqual({
      '(none)': 'tenacity',
      today: 'tenacity',
      yesterday: 'solace',
      '14-01-2025': 'serendipity',
      '2025-01-18': 'reverie',
    });
  });

  it('never lets a definition ping anyone', async () => {
    await world.wotd.adapter.getEntry('2025-01-13');
    const [sent] = await waitForSent(world.discord, invoke('wotd', { date: '2025-01-13' }), 1);
    const data = (sent?.body as { data: { allowed_mentions: unknown; embeds: { description: string }[] } }).data;
    expect(data.allowed_mentions).toEqual(NO_PINGS);
    expect(data.embeds[0]?.description).toContain('everyone');
  });

  it('explains an unreadable or impossible date privately, with how to write one', async () => {
    const unreadable = await waitForSent(world.discord, invoke('wotd', { date: 'next tuesday' }), 1);
    expect(unreadable).toEqual([ephemeralReply(expect.stringMatching(/“next tuesday” is not a date I can read\. .*YYYY-MM-DD/))]);
    const impossible = await waitForSent(world.discord, invoke('wotd', { date: '2025-02-30' }), 1);
    expect(impossible).toEqual([ephemeralReply(expect.stringMatching(/is not a real calendar day\. .*DD-MM-YYYY/))]);
  });

  it('says a future word has not been revealed yet', async () => {
    const sent = await waitForSent(world.discord, invoke('wotd', { date: '2025-01-21' }), 1);
    expect(sent).toEqual([ephemeralReply(expect.stringContaining('has not been revealed yet'))]);
  });

  it('says when a day has no word, privately', async () => {
    await world.wotd.adapter.getEntry('2024-06-01').catch(() => undefined);
    const sent = await waitForSent(world.discord, invoke('wotd', { date: '2024-06-01' }), 1);
    expect(sent).toEqual([ephemeralReply('There is no word of the day for 1 June 2024.')]);
  });
});

describe('/wotd-history and its Older button', () => {
  it('lists the words before today with an Older button, and Older replaces the message (type 7)', async () => {
    await world.wotd.adapter.getPrevious(TODAY, 3);
    await world.wotd.adapter.getPrevious('2025-01-17', 3);
    const handle = invoke('wotd-history');
    expect(await waitForSent(world.discord, handle, 1)).toEqual([
      {
        call: 'POST callback',
        body: {
          type: 4,
          data: {
            ...BASE,
            embeds: [
              {
                title: 'Recent words of the day',
                url: 'https://wotd.example',
                color: 0x5865f2,
                fields: [
                  { name: 'solace · 2025-01-19', value: '*noun · /solace/*\nA plain definition of solace.' },
                  { name: 'reverie · 2025-01-18', value: '*noun · /reverie/*\nA plain definition of reverie.' },
                  { name: 'quixotic · 2025-01-17', value: '*noun · /quixotic/*\nA plain definition of quixotic.' },
                ],
                footer: { text: '2025-01-19 to 2025-01-17 · Word of the Day from wotd.example' },
              },
            ],
            components: [{ type: 1, components: [{ type: 2, custom_id: 'hist:2025-01-17:3', label: 'Older', style: 2, disabled: false }] }],
            allowed_mentions: NO_PINGS,
          },
        },
      },
    ]);
    const message = await handle.waitForResponse();

    const older = press('hist:2025-01-17:3', message.id);
    const [update] = await waitForSent(world.discord, older, 1);
    expect(update?.call).toBe('POST callback');
    const body = update?.body as { type: number; data: Record<string, unknown> };
    expect(body.type).toBe(7);
    expect(body.data).toMatchObject({
      content: '',
      ...BASE,
      components: [{ type: 1, components: [{ type: 2, custom_id: 'hist:2025-01-14:3', label: 'Older', style: 2, disabled: false }] }],
      allowed_mentions: NO_PINGS,
    });
    expect((body.data.embeds as { title: string; fields: { name: string }[] }[])[0]).toMatchObject({
      title: 'Words of the day before 17 January 2025',
      fields: [{ name: 'plume · 2025-01-16' }, { name: 'opaque · 2025-01-15' }, { name: 'serendipity · 2025-01-14' }],
    });
    const replaced = await older.waitForResponse();
    expect(replaced.id).toBe(message.id);
  });

  it('drops the Older button on the last page', async () => {
    const first = invoke('wotd-history', { date: '2024-12-20', limit: 8 });
    const page = await first.waitForResponse();
    expect((page.embeds[0]?.fields as unknown[]).length).toBe(8);
    const older = press('hist:2024-12-12:8', page.id);
    const last = await older.waitForOriginal((message) => message.editedAt !== null);
    expect((last.embeds[0]?.fields as { name: string }[]).map((field) => field.name)).toEqual(['echo · 2024-12-11', 'echo · 2024-12-10']);
    expect(last.components).toEqual([]);
  });

  it('a button that cannot be served any more says so privately', async () => {
    const legacy = await invoke('legacy').waitForResponse();
    const sent = await waitForSent(world.discord, press('hist:not-a-date', legacy.id), 1);
    expect(sent).toEqual([ephemeralReply('This button no longer works. Run `/wotd-history` again to see the words of the day.')]);
  });
});

describe('/wotd-find and autocomplete', () => {
  it('lists every date of a word, newest first', async () => {
    const shown = await invoke('wotd-find', { word: 'quixotic' }).waitForResponse();
    const embed = shown.embeds[0] as { title: string; description: string };
    expect(embed.title).toBe('quixotic: word of the day 2 times');
    expect(embed.description.indexOf('2025-01-17')).toBeLessThan(embed.description.indexOf('2025-01-04'));
    expect(embed.description).toContain('adjective');
    expect(shown.components).toEqual([]);
  });

  it('pages past 10 results with Newer/Older buttons', async () => {
    const first = invoke('wotd-find', { word: 'echo' });
    const page1 = await first.waitForResponse();
    const buttons = (row: unknown) => (row as { components: { custom_id: string; disabled: boolean }[] }).components;
    expect(buttons(page1.components[0]).map((b) => [b.custom_id, b.disabled])).toEqual([
      ['find:0:echo', true],
      ['find:2:echo', false],
    ]);
    const older = press('find:2:echo', page1.id);
    const page2 = await older.waitForOriginal((message) => message.editedAt !== null);
    expect(page2.embeds[0]?.footer).toEqual({ text: 'Page 2 of 3 · Word of the Day from wotd.example' });
    expect(buttons(page2.components[0]).map((b) => [b.custom_id, b.disabled])).toEqual([
      ['find:1:echo', false],
      ['find:3:echo', false],
    ]);
    const newer = press('find:1:echo', page1.id);
    const back = await newer.waitForOriginal((message) => message.embeds[0]?.footer !== undefined && (message.embeds[0].footer as { text: string }).text.startsWith('Page 1'));
    expect((back.embeds[0]?.description as string).split('\n')).toHaveLength(10);
    expect(back.id).toBe(page1.id);
  });

  it('answers a word with no match kindly, suggesting words from the cache', async () => {
    await world.wotd.adapter.getEntry('2025-01-14');
    const handle = invoke('wotd-find', { word: 'serendipty' });
    const sent = await discordFinalContent(handle);
    expect(sent).toMatch(/“serendipty” has not been a word of the day.*Did you mean \*\*serendipity\*\*/);
  });

  it('autocomplete offers cached words and never calls the service', async () => {
    await world.wotd.adapter.getEntry('2025-01-14');
    const before = world.wotd.proxy.requests;
    const handle = world.discord.startAutocomplete({ name: 'wotd-find', options: { word: 'ser' }, focused: 'word', channelId: world.channelId });
    expect(await waitForSent(world.discord, handle, 1)).toEqual([
      { call: 'POST callback', body: { type: 8, data: { choices: [{ name: 'serendipity', value: 'serendipity' }] } } },
    ]);
    const none = await world.discord.autocomplete({ name: 'wotd-find', options: { word: 'zzzz' }, focused: 'word', channelId: world.channelId });
    expect(none).toEqual([]);
    expect(world.wotd.proxy.requests).toBe(before);
  });
});

/** The content of the answer the member ends up seeing, whichever path (reply, deferral, follow-up) it took. */
async function discordFinalContent(handle: ReturnType<typeof invoke>): Promise<string> {
  const callback = await handle.waitForCallback();
  if (callback.type === 4) return (callback.data as { content: string }).content;
  const followUp = await handle.waitForFollowUp(0).catch(() => undefined);
  if (followUp) return followUp.content;
  return (await handle.waitForResponse()).content;
}

describe('the router', () => {
  it('answers a command it does not know with a clear private message', async () => {
    expect(await waitForSent(world.discord, invoke('retired'), 1)).toEqual([ephemeralReply(UNKNOWN_COMMAND)]);
  });

  it('turns a thrown error into a kind private message, logged but never shown', async () => {
    expect(await waitForSent(world.discord, invoke('boom'), 1)).toEqual([ephemeralReply(SOMETHING_WENT_WRONG)]);
    expect(SOMETHING_WENT_WRONG).not.toMatch(/kaboom|\.ts|at /);
    const logged = world.logs.lines.map((line) => JSON.parse(line) as { msg: string; command?: string; err?: { message: string } });
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'command failed', command: 'boom', err: expect.objectContaining({ message: 'kaboom at /srv/secret/handler.ts:42' }) }));
  });

  it('after a public deferral, deletes the "thinking" message and follows up privately', async () => {
    const sent = await waitForSent(world.discord, invoke('boom-late'), 3);
    expect(sent).toEqual([
      { call: 'POST callback', body: { type: 5, data: { flags: 0 } } },
      { call: 'DELETE @original', body: null },
      { call: 'POST followup', body: { content: SOMETHING_WENT_WRONG, ...BASE, allowed_mentions: NO_PINGS, flags: 64 } },
    ]);
  });

  it('after a real answer, leaves it alone and follows up privately', async () => {
    const handle = invoke('boom-after');
    const sent = await waitForSent(world.discord, handle, 2);
    expect(sent).toEqual([
      { call: 'POST callback', body: { type: 4, data: { content: 'Here is your answer.', ...BASE, allowed_mentions: NO_PINGS } } },
      { call: 'POST followup', body: { content: SOMETHING_WENT_WRONG, ...BASE, allowed_mentions: NO_PINGS, flags: 64 } },
    ]);
    expect(handle.original?.deleted).toBe(false);
  });

  it('tells commands which daily-post permissions the bot holds in a channel', async () => {
    const restricted = world.discord.addChannel(world.guild.id, {
      name: 'no-embeds',
      permissionOverwrites: [{ id: world.guild.botRoleId ?? '', type: 'role', deny: PermissionFlagsBits.EmbedLinks }],
    });
    const held = async (channelId: string) => {
      const handle = world.discord.invokeCommand({ name: 'perms', options: { channel: channelId }, channelId: world.channelId });
      const [sent] = await waitForSent(world.discord, handle, 1);
      return (sent?.body as { data: { content: string } }).data.content;
    };
    expect(await held(world.channelId)).toBe('EmbedLinks,ReadMessageHistory,SendMessages,ViewChannel');
    expect(await held(restricted.id)).toBe('ReadMessageHistory,SendMessages,ViewChannel');
  });

  it('answers for a handler that forgot to, so Discord never shows "This interaction failed"', async () => {
    expect(await waitForSent(world.discord, invoke('silent'), 1)).toEqual([ephemeralReply(SOMETHING_WENT_WRONG)]);
    expect(world.logs.text()).toContain('command finished without answering');
  });

  it('answers unknown and failing buttons privately', async () => {
    const legacy = await invoke('legacy').waitForResponse();
    expect(await waitForSent(world.discord, press('gone:1', legacy.id), 1)).toEqual([ephemeralReply(UNKNOWN_BUTTON)]);
    expect(await waitForSent(world.discord, press('boom:1', legacy.id), 1)).toEqual([ephemeralReply(SOMETHING_WENT_WRONG)]);
  });

  it('tells the timing observer how each interaction went, with its first callback between receipt and done', async () => {
    const legacy = await invoke('legacy').waitForResponse();
    const handles = {
      answered: invoke('wotd', { date: TODAY }),
      failed: invoke('boom'),
      unknown: invoke('retired'),
      button: press('gone:1', legacy.id),
      autocomplete: world.discord.startAutocomplete({ name: 'wotd-find', options: { word: 'ser' }, focused: 'word', channelId: world.channelId }),
    };
    const timingOf = (id: string) => vi.waitFor(() => {
      const found = timings.find((timing) => timing.interactionId === id);
      if (!found) throw new Error(`no timing for ${id} yet`);
      return found;
    });
    expect(await timingOf(handles.answered.id)).toMatchObject({ kind: 'command', name: 'wotd', outcome: 'ok' });
    expect(await timingOf(handles.failed.id)).toMatchObject({ kind: 'command', name: 'boom', outcome: 'internal_error' });
    expect(await timingOf(handles.unknown.id)).toMatchObject({ kind: 'command', name: 'unknown', outcome: 'internal_error' });
    expect(await timingOf(handles.button.id)).toMatchObject({ kind: 'button', name: 'unknown', outcome: 'user_error' });
    expect(await timingOf(handles.autocomplete.id)).toMatchObject({ kind: 'autocomplete', name: 'wotd-find', outcome: 'ok' });
    for (const handle of Object.values(handles)) {
      const timing = await timingOf(handle.id);
      // Handed to discord.js, then accepted by Discord, then done.
      expect(timing.firstSentAt).toBeGreaterThanOrEqual(timing.receivedAt);
      expect(timing.firstResponseAt).toBeGreaterThanOrEqual(timing.firstSentAt ?? Number.POSITIVE_INFINITY);
      expect(timing.doneAt).toBeGreaterThanOrEqual(timing.firstResponseAt ?? Number.POSITIVE_INFINITY);
    }
  });

  it('gives commands the invoker, permissions and typed options', async () => {
    const common = { name: 'inspect', channelId: world.channelId };
    const options = { channel: world.guild.channelId('news'), role: world.guild.everyoneRoleId, count: 7 };
    const admin = world.discord.invokeCommand({ ...common, options, memberPermissions: PermissionFlagsBits.ManageChannels | PermissionFlagsBits.ViewChannel });
    const [sent] = await waitForSent(world.discord, admin, 1);
    const data = (sent?.body as { data: { content: string; allowed_mentions: unknown; flags: number } }).data;
    expect(data.allowed_mentions).toEqual({ parse: [], roles: ['222222222222222222'] });
    expect(data.flags).toBe(64);
    expect(JSON.parse(data.content)).toEqual({
      invoker: {
        userId: admin.userId,
        guildId: world.guild.id,
        channelId: world.channelId,
        canManageChannels: true,
        canManageGuild: false,
        context: 'guild',
        botInGuild: true,
        // As Discord sends them: the member's client language and the server's preferred locale.
        locale: 'en-US',
        guildLocale: 'en-US',
      },
      channel: { id: world.guild.channelId('news'), name: 'news', kind: 'announcement' },
      role: { id: world.guild.everyoneRoleId, name: '@everyone' },
      count: 7,
      missing: null,
    });
    const member = world.discord.invokeCommand({ ...common, options: { channel: world.channelId }, memberPermissions: PermissionFlagsBits.ViewChannel });
    const [plain] = await waitForSent(world.discord, member, 1);
    const seen = JSON.parse((plain?.body as { data: { content: string } }).data.content) as { invoker: { canManageChannels: boolean }; channel: { kind: string } };
    expect(seen.invoker.canManageChannels).toBe(false);
    expect(seen.channel.kind).toBe('text');
  });
});

describe('the runtime', () => {
  it('acknowledged every interaction in time, each exactly once', () => {
    const handles = world.discord.interactionHandles();
    expect(handles.length).toBeGreaterThan(20);
    for (const handle of handles) {
      expect(handle.callbacks.map((callback) => callback.status), `interaction ${handle.id}`).toEqual([204]);
    }
  });

  it('keeps answering after the gateway connection drops (discord.js resumes the session)', async () => {
    world.discord.closeGateway(4000);
    await world.discord.waitForResume();
    const shown = await invoke('wotd', { date: '2025-01-14' }).waitForResponse();
    expect(shown.embeds[0]?.title).toBe('serendipity');
    expect(world.logs.text()).toContain('gateway session resumed');
  });

  it('refuses to start with a token Discord rejects, without logging it', async () => {
    const token = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.wrong.token-that-must-not-leak';
    const logs = capturingLogger([token]);
    await expect(
      startDiscordBot({
        config: { DISCORD_TOKEN: token, DISCORD_API_URL: world.discord.apiUrl, DISCORD_APPLICATION_ID: undefined },
        commands: [],
        services: { lookup: world.wotd.adapter, siteUrl: SITE_URL },
        logger: logs.logger,
      }),
    ).rejects.toThrow(/invalid token/i);
    expect(logs.text()).not.toContain(token);
    expect(logs.text()).not.toContain('token-that-must-not-leak');
  });

  it('logs the invite URL at start-up', () => {
    const started = world.logs.lines.map((line) => JSON.parse(line) as { msg: string; inviteUrl?: string }).find((line) => line.inviteUrl);
    expect(started?.inviteUrl).toBe(
      `https://discord.com/oauth2/authorize?client_id=${world.discord.applicationId}&scope=bot+applications.commands&permissions=84992`,
    );
    expect(started?.msg).toContain(started?.inviteUrl);
  });

  it('stop() lets an interaction in progress finish, then disconnects; the token never reached a log line', async () => {
    const handle = invoke('slow');
    await gate.entered.promise;
    let stopped = false;
    const stopping = world.bot.stop().then(() => {
      stopped = true;
    });
    // stop() says synchronously what it waits for, then waits: the answer is still held back by the gate.
    expect(world.logs.lines.at(-1)).toContain('waiting for interactions in progress');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    gate.release.resolve();
    await stopping;
    expect(sentFor(world.discord, handle).map((call) => call.call)).toEqual(['POST callback', 'PATCH @original']);
    expect((await handle.waitForResponse()).content).toBe('Finished.');
    expect(world.logs.lines.at(-1)).toContain('disconnected from Discord');
    expect(world.discord.gatewayEvents.at(-1)?.kind).toBe('close');
    expect(world.logs.text()).toContain('connecting to Discord');
    expect(world.logs.text()).not.toContain(world.discord.token);
  });
});

// Keep the helper honest: it must see the bot's requests for a handle and nothing else.
it('sentFor only reports the requests of one interaction', () => {
  const handles = world.discord.interactionHandles();
  const total = handles.reduce((sum, handle) => sum + sentFor(world.discord, handle).length, 0);
  const interactionRequests = world.discord.requests.filter((request) => /^\/(interactions|webhooks)\//.test(request.path)).length;
  expect(total).toBe(interactionRequests);
});
