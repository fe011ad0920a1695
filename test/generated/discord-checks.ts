import type { APIEmbed } from 'discord.js';
import { expect } from 'vitest';
import { newMessagePayload, replacementPayload } from '../../src/discord/interaction-payloads.ts';
import type { OutgoingMessage } from '../../src/replies/interactions.ts';
import { validateMessageBody } from '../support/discord/validation.ts';
import { activeMarkup } from './discord-markdown.ts';
import { expectSpecific, wellFormed } from './generated.ts';

/** Checks of what the bot would send Discord, shared by the generated-input tests. */

/** Each text an embed shows, with where it is. */
export function embedTexts(embed: APIEmbed): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  if (embed.title !== undefined) texts.push(['title', embed.title]);
  if (embed.description !== undefined) texts.push(['description', embed.description]);
  for (const [index, field] of (embed.fields ?? []).entries()) {
    texts.push([`field ${index} name`, field.name], [`field ${index} value`, field.value]);
  }
  if (embed.footer?.text !== undefined) texts.push(['footer', embed.footer.text]);
  return texts;
}

/**
 * The bot's own wording may use code spans, bold and timestamps; text from the service or a member quoted in it
 * must still not mention anyone or link.
 */
const NEVER_IN_CONTENT = new Set(['mention or tag', 'masked link', '@everyone', '@here']);

/** Text without the tags the bot means to show (a subscription's `<#channel>`, a `<t:…>` time). */
function withoutOwn(text: string, ownTags: Array<string | RegExp>): string {
  let rest = text;
  for (const tag of ownTags) rest = typeof tag === 'string' ? rest.split(tag).join('') : rest.replace(tag, '');
  return rest;
}

/**
 * Embeds render inert (the bot's own * aside) and are well-formed; the content mentions and links nothing, once
 * the tags the bot means to show (`ownTags`) are set aside.
 */
export function expectInert(
  message: { content?: string | undefined; embeds?: APIEmbed[] | undefined },
  where: string,
  ownTags: Array<string | RegExp> = [],
): void {
  for (const embed of message.embeds ?? []) {
    for (const [part, text] of embedTexts(embed)) {
      expect(activeMarkup(withoutOwn(text, ownTags), { ownStars: true }), `${where}, embed ${part}: ${JSON.stringify(text)}`).toEqual([]);
      expect(wellFormed(text), `${where}, embed ${part} is not well-formed UTF-16`).toBe(true);
    }
  }
  const content = withoutOwn(message.content ?? '', ownTags);
  const active = activeMarkup(content, { ownStars: true }).filter((markup) => NEVER_IN_CONTENT.has(markup.kind));
  expect(active, `${where}, content: ${JSON.stringify(message.content)}`).toEqual([]);
  expect(wellFormed(message.content ?? ''), `${where}: content is not well-formed UTF-16`).toBe(true);
}

/** What the Discord transport would send for this reply: pings nobody, and Discord would accept it. */
export function expectSendable(message: OutgoingMessage, where: string): void {
  const payload = newMessagePayload(message);
  expect(payload.allowedMentions, where).toEqual({ parse: [], roles: message.mentionRoleIds ?? [] });
  expect(message.mentionRoleIds ?? [], `${where}: a reply must ping no role`).toEqual([]);
  expect(replacementPayload(message).allowedMentions, where).toEqual({ parse: [], roles: [] });
  const body = JSON.parse(JSON.stringify({ content: message.content, embeds: message.embeds, allowed_mentions: payload.allowedMentions }));
  expect(validateMessageBody(body, { mode: 'create', interaction: true }).tree, `${where}: Discord would refuse it`).toEqual({});
}

/** Everything a message shows, as one string. */
export function textOf(message: OutgoingMessage): string {
  const parts = [message.content ?? ''];
  for (const embed of message.embeds ?? []) for (const [, text] of embedTexts(embed)) parts.push(text);
  return parts.join('\n');
}

/**
 * One specific answer: an embed, or a private note saying one of `reasons`; nothing generic, nothing leaked,
 * the member's input quoted inertly, and Discord would take it.
 */
export function expectAnswer(answer: OutgoingMessage, where: string, input: string, reasons: RegExp, ownTags: Array<string | RegExp> = []): void {
  const text = textOf(answer);
  expectSpecific(text, where, input);
  if (!answer.embeds?.length) {
    expect(answer.ephemeral, `${where}: a note that is not private: ${text}`).toBe(true);
    expect(answer.content ?? '', where).toMatch(reasons);
  }
  expectInert(answer, where, ownTags);
  expectSendable(answer, where);
}
