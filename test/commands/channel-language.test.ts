import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import type { BotServices, ChannelRef, CommandContext, Invoker, OutgoingMessage } from '../../src/replies/interactions.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { tempStore } from '../schedule/helpers.ts';
import { startCommandWorld, type CommandWorld } from './world.ts';

/** A channel subscribed with a language answers in it publicly; its admins and members still get private notes in theirs. */

const CHANNEL: ChannelRef = { id: '200000000000000002', name: 'mots', kind: 'text' };
const MEMBER: Invoker = {
  userId: '200000000000000003',
  guildId: '200000000000000001',
  channelId: CHANNEL.id,
  canManageChannels: true,
  canManageGuild: true,
  context: 'guild',
  botInGuild: true,
  locale: 'de',
  guildLocale: 'en-US',
};

let world: CommandWorld;
let store: SubscriptionStore;
let services: BotServices;
let cleanup: () => void;

beforeAll(async () => {
  world = await startCommandWorld();
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  services = { ...world.services, subscriptions: createSubscriptionService({ store, limit: 5, now: world.now }) };
});

afterAll(async () => {
  await store?.close();
  await world?.close();
  cleanup?.();
});

function context(options: Record<string, string | ChannelRef>, sent: OutgoingMessage[]): CommandContext {
  return {
    commandName: 'test',
    invoker: MEMBER,
    options: {
      getString: (name) => (typeof options[name] === 'string' ? (options[name] as string) : null),
      getInteger: () => null,
      getBoolean: () => null,
      getSubcommand: () => null,
      getChannel: (name) => (typeof options[name] === 'object' ? (options[name] as ChannelRef) : null),
      getRole: () => null,
    },
    acknowledged: false,
    defer: async () => undefined,
    respond: async (message) => void sent.push(message),
    botPermissionsIn: async () => new Set(['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory']),
    memberCanManageChannel: async () => true,
  };
}

describe('a subscription language', () => {
  it("is the channel's language for public answers, while the admin is answered in their own", async () => {
    const saved: OutgoingMessage[] = [];
    await wotdSubscribeCommand.execute(context({ channel: CHANNEL, language: 'Français' }, saved), services);
    expect(saved[0]?.content).toMatch(/^Abonniert: <#200000000000000002> – das Wort des Tages jeden Tag um 09:00 \(UTC\), auf Französisch\./);
    const answered: OutgoingMessage[] = [];
    await wotdCommand.execute(context({ date: '2025-01-14' }, answered), services);
    expect(answered[0]?.embeds?.[0]?.footer?.text).toBe('14/01/2025 · Mot du jour de wotd.example');
  });

  it('says what changed, in words, when the language changes', async () => {
    const saved: OutgoingMessage[] = [];
    await wotdSubscribeCommand.execute(context({ channel: CHANNEL, language: 'ja' }, saved), services);
    expect(saved[0]?.content).toContain('Geändert: die Sprache von Französisch auf Japanisch.');
  });

  it("answers in the new language at once, and in the server's once the channel is unsubscribed", async () => {
    const answered: OutgoingMessage[] = [];
    await wotdCommand.execute(context({ date: '2025-01-14' }, answered), services);
    expect(answered[0]?.embeds?.[0]?.footer?.text).toMatch(/^2025\/01\/14 · /);
    await services.subscriptions?.unsubscribe(MEMBER.guildId ?? '', CHANNEL.id);
    const after: OutgoingMessage[] = [];
    await wotdCommand.execute(context({ date: '2025-01-14' }, after), services);
    expect(after[0]?.embeds?.[0]?.footer?.text).toBe('2025-01-14 · Word of the Day from wotd.example');
  });

  it('refuses a language the bot does not write, naming those it does', async () => {
    const refused: OutgoingMessage[] = [];
    await wotdSubscribeCommand.execute(context({ channel: CHANNEL, language: 'Klingonisch' }, refused), services);
    expect(refused[0]?.content).toMatch(/^In „Klingonisch“ schreibe ich nicht\./);
  });
});
