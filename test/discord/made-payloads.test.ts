import { ButtonInteraction, ChatInputCommandInteraction, MessagePayload, type APIEmbed, type Client } from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createDiscordClient } from '../../src/discord/client.ts';
import { newMessagePayload, replacementPayload, replyPayload, updatePayload } from '../../src/discord/interaction-payloads.ts';
import type { ButtonSpec, OutgoingMessage } from '../../src/replies/interactions.ts';

/**
 * A reply or update is handed to discord.js with its body already made (src/discord/interaction-payloads.ts): that
 * body must be, byte for byte, the one discord.js makes itself of newMessagePayload's or replacementPayload's options
 * for an interaction of the bot's client, for every shape of message the bot sends.
 */

const client: Client = createDiscordClient({ apiUrl: 'http://127.0.0.1:9' });
afterAll(() => client.destroy());

/** An interaction of that client, as MessagePayload sees its target (no gateway data is needed for a body). */
function interactionOf<T extends object>(prototype: T): T {
  return Object.assign(Object.create(prototype) as T, { client });
}
const command = interactionOf(ChatInputCommandInteraction.prototype);
const button = interactionOf(ButtonInteraction.prototype);

const embed: APIEmbed = { title: 'serendipity', url: 'https://wotd.example', description: '*noun*\n\nFinding things.', color: 0x5865f2, footer: { text: '2025-01-14 · wotd.example' } };
const listEmbed: APIEmbed = { title: 'Before', url: 'https://wotd.example', color: 1, fields: [{ name: 'a · 2025-01-13', value: 'A.' }], footer: { text: 'x' } };
const buttons = (count: number): ButtonSpec[] =>
  Array.from({ length: count }, (_, index) => ({ customId: `b:${index}`, label: `Button ${index}`, ...(index % 3 === 1 ? { style: 'primary' as const, disabled: true } : {}) }));

/** Every combination of what a message may carry. */
function messages(): OutgoingMessage[] {
  const all: OutgoingMessage[] = [];
  for (const content of [undefined, '', 'Hello @everyone'])
    for (const embeds of [undefined, [], [embed], [embed, listEmbed]])
      for (const buttonCount of [undefined, 0, 1, 7, 30])
        for (const ephemeral of [undefined, false, true])
          for (const mentionRoleIds of [undefined, [], ['111111111111111111']]) {
            const message: OutgoingMessage = {};
            if (content !== undefined) message.content = content;
            if (embeds !== undefined) message.embeds = embeds;
            if (buttonCount !== undefined) message.buttons = buttons(buttonCount);
            if (ephemeral !== undefined) message.ephemeral = ephemeral;
            if (mentionRoleIds !== undefined) message.mentionRoleIds = mentionRoleIds;
            all.push(message);
          }
  return all;
}

async function discordJsMakes(target: object, options: object): Promise<{ body: string; files: unknown }> {
  const payload = await MessagePayload.create(target as ChatInputCommandInteraction, options).resolveBody().resolveFiles();
  return { body: JSON.stringify(payload.body), files: payload.files };
}

async function madeHere(payload: unknown): Promise<{ body: string; files: unknown }> {
  expect(payload).toBeInstanceOf(MessagePayload);
  const made = await (payload as MessagePayload).resolveBody().resolveFiles();
  return { body: JSON.stringify(made.body), files: made.files };
}

describe('answers made before discord.js sees them', () => {
  it('a reply has the body discord.js makes of newMessagePayload', async () => {
    for (const message of messages()) {
      expect(await madeHere(replyPayload(command, message)), JSON.stringify(message)).toEqual(await discordJsMakes(command, newMessagePayload(message)));
    }
  });

  it('an update has the body discord.js makes of replacementPayload', async () => {
    for (const message of messages()) {
      expect(await madeHere(updatePayload(button, message)), JSON.stringify(message)).toEqual(await discordJsMakes(button, replacementPayload(message)));
    }
  });

  it('an answer with files is left to discord.js, as options', () => {
    const message: OutgoingMessage = { content: 'Your data', files: [{ name: 'data.json', text: '{}' }] };
    expect(replyPayload(command, message)).not.toBeInstanceOf(MessagePayload);
    expect(updatePayload(button, message)).not.toBeInstanceOf(MessagePayload);
    expect(Object.keys(replyPayload(command, message))).toEqual(Object.keys(newMessagePayload(message)));
  });
});
