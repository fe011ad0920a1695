import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { PSEUDO_CLOSE, PSEUDO_LOCALE, PSEUDO_OPEN } from '../../src/replies/i18n/pseudo.ts';
import type {
  AutocompleteChoice,
  BotServices,
  ButtonContext,
  ChannelRef,
  CommandContext,
  Invoker,
  OutgoingMessage,
  RoleRef,
} from '../../src/replies/interactions.ts';
import { PrivacyService } from '../../src/schedule/privacy.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { DISCORD_LIMITS } from '../../src/schedule/discord-limits.ts';
import { addDays } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import { tempStore } from '../schedule/helpers.ts';
import { startCommandWorld, TODAY, type CommandWorld } from './world.ts';

/**
 * Every reply path in the pseudo-locale (each catalog text accented, about 40% longer, between ⟦ and ⟧): a text that
 * still reads as plain English was written outside the catalogs, and one past Discord's limits would break in a long
 * language too. The service's words here are made-up letters, so any English left over is the bot's own.
 */

const WORD = 'zqvx';
function entries(): Entry[] {
  const list: Entry[] = [];
  for (let date = '2024-12-01'; date <= TODAY; date = addDays(date, 1)) {
    list.push({ date, word: date.endsWith('5') ? WORD : `zq${date.slice(-2)}`, pos: 'noun', ipa: '/zq/', definition: 'Zqv zqx.' });
  }
  list.push({ date: '2024-11-30', word: 'zqvy', pos: 'xqz', ipa: '/zq/', definition: '(zqx) Zqv.' });
  return list;
}

const GUILD = '100000000000000001';
const CHANNEL: ChannelRef = { id: '100000000000000002', name: 'words', kind: 'text' };
/** A channel where the bot lacks Embed Links and Read Message History. */
const LOCKED: ChannelRef = { id: '100000000000000004', name: 'locked', kind: 'announcement' };
const ROLE: RoleRef = { id: '100000000000000005', name: 'readers' };
const INVOKER: Invoker = {
  userId: '100000000000000003',
  guildId: GUILD,
  channelId: CHANNEL.id,
  canManageChannels: true,
  canManageGuild: true,
  context: 'guild',
  botInGuild: true,
  locale: PSEUDO_LOCALE,
  guildLocale: PSEUDO_LOCALE,
};

let world: CommandWorld;
let store: SubscriptionStore;
let services: BotServices;
let cleanup: () => void;

beforeAll(async () => {
  world = await startCommandWorld({}, undefined, entries());
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  services = {
    ...world.services,
    subscriptions: createSubscriptionService({ store, limit: 5, now: world.now }),
    privacy: new PrivacyService(store, world.now),
  };
});

afterAll(async () => {
  await store?.close();
  await world?.close();
  cleanup?.();
});

type Options = Record<string, string | number | boolean | ChannelRef | RoleRef>;

interface Sent {
  messages: OutgoingMessage[];
}

function contextFor(commandName: string, options: Options, sent: Sent, subcommand: string | null = null): CommandContext {
  let acknowledged = false;
  const pick = <T>(name: string, test: (value: unknown) => boolean): T | null => (test(options[name]) ? (options[name] as T) : null);
  return {
    commandName,
    invoker: INVOKER,
    options: {
      getString: (name) => pick<string>(name, (value) => typeof value === 'string'),
      getInteger: (name) => pick<number>(name, (value) => typeof value === 'number'),
      getBoolean: (name) => pick<boolean>(name, (value) => typeof value === 'boolean'),
      getSubcommand: () => subcommand,
      getChannel: (name) => pick<ChannelRef>(name, (value) => typeof value === 'object' && value !== null && 'kind' in value),
      getRole: (name) => pick<RoleRef>(name, (value) => typeof value === 'object' && value !== null && !('kind' in value)),
    },
    get acknowledged() {
      return acknowledged;
    },
    defer: async () => {
      acknowledged = true;
    },
    respond: async (message) => {
      acknowledged = true;
      sent.messages.push(message);
    },
    botPermissionsIn: async (channelId) =>
      new Set(channelId === LOCKED.id ? ['ViewChannel', 'SendMessages'] : ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory', 'CreatePublicThreads']),
    memberCanManageChannel: async () => true,
  };
}

async function run(name: string, options: Options = {}, subcommand: string | null = null): Promise<OutgoingMessage[]> {
  const command = commands.find((candidate) => candidate.data.name === name);
  if (!command) throw new Error(`no command ${name}`);
  const sent: Sent = { messages: [] };
  await command.execute(contextFor(name, options, sent, subcommand), services);
  return sent.messages;
}

async function press(customId: string): Promise<OutgoingMessage[]> {
  const command = commands.find((candidate) => candidate.button && customId.startsWith(`${candidate.button.prefix}:`));
  if (!command?.button) throw new Error(`no button ${customId}`);
  const sent: Sent = { messages: [] };
  const base = contextFor('button', {}, sent);
  const context: ButtonContext = { ...base, customId, update: async (message) => void sent.messages.push(message) };
  await command.button.handle(context, services);
  return sent.messages;
}

/** What is left of a text once the catalogs' marked texts, mentions, timestamps, code and the service's words are gone. */
function unmarked(text: string): string {
  return text
    .replace(new RegExp(`${PSEUDO_OPEN}[^${PSEUDO_CLOSE}]*${PSEUDO_CLOSE}`, 'g'), ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\bzq\w*/gi, ' ');
}

const ENGLISH = /[A-Za-z]{2,}[\s,.:;]+[A-Za-z]{2,}/;

/** The checks every message gets: its own texts are marked, nothing unmarked reads as English, and it fits. */
function checkMessage(message: OutgoingMessage, where: string): string[] {
  const problems: string[] = [];
  const texts: Array<[string, string, number]> = [];
  if (message.content) texts.push(['content', message.content, DISCORD_LIMITS.content]);
  let total = 0;
  for (const embed of message.embeds ?? []) {
    if (embed.title) texts.push(['title', embed.title, 256]);
    if (embed.description) texts.push(['description', embed.description, 4096]);
    if (embed.footer?.text) texts.push(['footer', embed.footer.text, 2048]);
    for (const field of embed.fields ?? []) texts.push(['field name', field.name, 256], ['field value', field.value, 1024]);
    total += (embed.title ?? '').length + (embed.description ?? '').length + (embed.footer?.text ?? '').length;
    total += (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0);
    if (embed.footer?.text && !embed.footer.text.includes(PSEUDO_OPEN)) problems.push(`${where}: the footer is not from the catalogs: ${embed.footer.text}`);
  }
  if (total > 6000) problems.push(`${where}: embeds of ${total} characters`);
  for (const button of message.buttons ?? []) {
    texts.push(['button', button.label, 80]);
    if (!button.label.startsWith(PSEUDO_OPEN)) problems.push(`${where}: button label not from the catalogs: ${button.label}`);
  }
  if (message.content && !message.content.includes(PSEUDO_OPEN)) problems.push(`${where}: content not from the catalogs: ${message.content}`);
  for (const [what, text, limit] of texts) {
    if (text.length > limit) problems.push(`${where}: ${what} of ${text.length} characters (limit ${limit})`);
    const left = unmarked(text);
    if (ENGLISH.test(left)) problems.push(`${where}: ${what} has text outside the catalogs: ${JSON.stringify(left.trim())}`);
  }
  return problems;
}

describe('the pseudo-locale through every reply path', () => {
  it('marks every text the commands and buttons write, and keeps each within Discord limits', async () => {
    const problems: string[] = [];
    const check = (where: string, messages: OutgoingMessage[]): OutgoingMessage[] => {
      if (messages.length === 0) problems.push(`${where}: no answer`);
      for (const message of messages) problems.push(...checkMessage(message, where));
      return messages;
    };
    check('/wotd', await run('wotd'));
    check('/wotd yesterday', await run('wotd', { date: 'gestern' }));
    check('/wotd unreadable', await run('wotd', { date: 'soon' }));
    check('/wotd not real', await run('wotd', { date: '31-02-2024' }));
    check('/wotd future', await run('wotd', { date: addDays(TODAY, 2) }));
    check('/wotd far future', await run('wotd', { date: addDays(TODAY, 400) }));
    check('/wotd before the list', await run('wotd', { date: '2001-01-01' }));
    const history = check('/wotd-history', await run('wotd-history', { limit: 8 }));
    const older = history[0]?.buttons?.[0]?.customId;
    if (older) check('Older', await press(older));
    check('/wotd-history bad limit', await run('wotd-history', { limit: 99 }));
    check('/wotd-history before all', await run('wotd-history', { date: '2001-01-01' }));
    check('history stale button', await press('hist:2999-01-01:3'));
    const found = check('/wotd-find', await run('wotd-find', { word: WORD }));
    const next = found[0]?.buttons?.[1]?.customId;
    if (next) check('find next page', await press(next));
    check('/wotd-find no match', await run('wotd-find', { word: 'zqvz' }));
    check('/wotd-find nothing near', await run('wotd-find', { word: 'qqqqqq' }));
    check('/wotd-find empty', await run('wotd-find', { word: ' ' }));
    check('find stale page', await press(`find:99:${WORD}`));
    check('/wotd-subscribe missing permissions', await run('wotd-subscribe', { channel: LOCKED, thread: true }));
    check('/wotd-subscribe publish in a text channel', await run('wotd-subscribe', { channel: CHANNEL, publish: true }));
    check('/wotd-subscribe preview', await run('wotd-subscribe', { channel: CHANNEL, thread: true, role: ROLE, preview: true }));
    check('/wotd-subscribe', await run('wotd-subscribe', { channel: CHANNEL, role: ROLE, style: 'compact', thread: true, language: 'fr' }));
    check('/wotd-subscribe again', await run('wotd-subscribe', { channel: CHANNEL, time: '18:30', timezone: 'Asia/Tokyo', language: 'ja' }));
    check('/wotd-subscribe unchanged', await run('wotd-subscribe', { channel: CHANNEL, time: '18:30', timezone: 'Asia/Tokyo', language: 'ja' }));
    check('/wotd-subscribe weekends, paused', await run('wotd-subscribe', { channel: CHANNEL, days: 'weekends', pause: true }));
    check('/wotd-subscribe reset', await run('wotd-subscribe', { channel: CHANNEL, reset: 'days,language' }));
    check('/wotd-subscribe bad days', await run('wotd-subscribe', { channel: CHANNEL, days: 'funday' }));
    check('/wotd-subscribe bad reset', await run('wotd-subscribe', { channel: CHANNEL, reset: 'colour' }));
    check('/wotd-subscribe until with resume', await run('wotd-subscribe', { channel: CHANNEL, pause: false, until: addDays(TODAY, 3) }));
    check('/wotd-subscribe bad until', await run('wotd-subscribe', { channel: CHANNEL, until: '31-12-2030' }));
    check('/wotd-subscribe until today', await run('wotd-subscribe', { channel: CHANNEL, until: TODAY }));
    check('/wotd-subscribe until too far', await run('wotd-subscribe', { channel: CHANNEL, until: addDays(TODAY, 400) }));
    check('/wotd-subscriptions', await run('wotd-subscriptions'));
    check('/wotd-unsubscribe', await run('wotd-unsubscribe', { channel: CHANNEL }));
    check('/wotd-subscribe bad time', await run('wotd-subscribe', { channel: CHANNEL, time: '25:99' }));
    check('/wotd-subscribe bad zone', await run('wotd-subscribe', { channel: CHANNEL, timezone: 'Mars/Olympus' }));
    check('/wotd-subscribe bad language', await run('wotd-subscribe', { channel: CHANNEL, language: 'Klingon' }));
    check('/wotd-subscriptions empty', await run('wotd-subscriptions'));
    check('/wotd-unsubscribe none', await run('wotd-unsubscribe', { channel: CHANNEL }));
    check('/wotd-subscribe-me', await run('wotd-subscribe-me', { style: 'compact', language: 'de' }));
    check('/wotd-subscribe-me again', await run('wotd-subscribe-me', { time: '07:30', timezone: 'Europe/Berlin' }));
    check('/wotd-unsubscribe-me', await run('wotd-unsubscribe-me'));
    check('/wotd-unsubscribe-me again', await run('wotd-unsubscribe-me'));
    check('/wotd-data export', await run('wotd-data', {}, 'export'));
    const forget = check('/wotd-data forget', await run('wotd-data', { server: true }, 'forget'));
    const erase = forget[0]?.buttons?.[0]?.customId;
    if (erase) check('Erase', await press(erase));
    check('Keep it', await press('data:keep'));
    expect(problems).toEqual([]);
  });

  it('marks the language suggestions', async () => {
    const command = commands.find((candidate) => candidate.data.name === 'wotd-subscribe');
    let choices: AutocompleteChoice[] = [];
    await command?.autocomplete?.(
      { invoker: INVOKER, commandName: 'wotd-subscribe', focused: { name: 'language', value: '' }, respond: async (given) => void (choices = given) },
      services,
    );
    expect(choices.length).toBe(8);
    for (const choice of choices.filter((candidate) => candidate.value !== 'en-US')) expect(choice.name).toContain(PSEUDO_OPEN);
  });

  it('marks what the console writes: help, mistakes and button presses', async () => {
    let output = '';
    const session = new ConsoleSession({ commands, services, write: (text) => void (output += text), color: false, showThinking: true, now: world.now, locale: PSEUDO_LOCALE });
    for (const line of ['/wotd-fnd word:x', '/wotd-data', '/wotd-history limit:x', 'press Older', '/wotd-history', 'press 9', 'hello there', '"open']) {
      await session.handleLine(line);
    }
    const left = unmarked(output)
      .replace(/^\s*\/[\w-]+.*$/gm, ' ')
      .replace(/^\s*[\w-]+: .*$/gm, ' ');
    expect(left.match(new RegExp(ENGLISH.source, 'g')) ?? []).toEqual([]);
    expect(output.split(PSEUDO_OPEN).length).toBeGreaterThan(10);
    // Help lists the commands' own descriptions (Discord's localizations; the pseudo-locale has none) under marked lines.
    output = '';
    await session.handleLine('help');
    const lines = output.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${PSEUDO_OPEN}`));
    expect(lines.at(-1)).toMatch(new RegExp(`^${PSEUDO_OPEN}`));
  });
});
