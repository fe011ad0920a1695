import { INTRO_LIMIT } from '../schedule/post-shape.ts';
import type { ChannelRef, CommandOptions, ModalSpec } from './interactions.ts';
import type { Translate } from './i18n/translate.ts';
import { clip } from './embeds.ts';

/**
 * /wotd-subscribe's form for the intro line. Its custom id carries the channel's id and nothing else: on submit the
 * member's permission in that channel and the channel's subscription are checked again, as for the command, so an id
 * made up by a modified client gains nothing.
 */

export const INTRO_MODAL_PREFIX = 'subscribe-intro';
export const INTRO_INPUT_ID = 'intro';

/** Discord's limits on a form's title and an input's label and description. */
const TITLE_LIMIT = 45;
const LABEL_LIMIT = 45;
const DESCRIPTION_LIMIT = 100;

export function introModal(channelId: string, current: string | null, t: Translate): ModalSpec {
  return {
    customId: `${INTRO_MODAL_PREFIX}:${channelId}`,
    title: clip(t('subscribe.modal.title'), TITLE_LIMIT),
    inputs: [
      {
        customId: INTRO_INPUT_ID,
        label: clip(t('subscribe.modal.label'), LABEL_LIMIT),
        description: clip(t('subscribe.modal.description'), DESCRIPTION_LIMIT),
        ...(current ? { value: current } : {}),
        maxLength: INTRO_LIMIT,
      },
    ],
  };
}

/** The channel id a form's custom id names (digits, or a console channel's name), or null for anything else. */
export function introModalChannel(customId: string): string | null {
  const match = /^subscribe-intro:([^\s:]{1,80})$/.exec(customId);
  return match?.[1] ?? null;
}

/** The options of the command a submitted form stands for: the channel, and the intro as typed. */
export function introModalOptions(channel: ChannelRef, intro: string): CommandOptions {
  return {
    getString: (name) => (name === 'intro' ? intro : null),
    getInteger: () => null,
    getBoolean: () => null,
    getSubcommand: () => null,
    getChannel: (name) => (name === 'channel' ? channel : null),
    getRole: () => null,
  };
}

/** /wotd-subscribe's options besides the channel; `intro-edit` goes alone. */
export const OTHER_SUBSCRIBE_OPTIONS = {
  strings: ['time', 'timezone', 'style', 'days', 'until', 'reset', 'colour', 'intro', 'parts', 'date-style', 'language', 'forum-tag', 'webhook-name', 'webhook-avatar'],
  booleans: ['thread', 'publish', 'pause', 'skip', 'preview', 'quiz', 'pin'],
  other: ['role', 'notices'],
} as const;

/** Whether a command gave any option besides the channel and `intro-edit`. */
export function givesOtherOptions(options: CommandOptions): boolean {
  return (
    OTHER_SUBSCRIBE_OPTIONS.strings.some((name) => options.getString(name) !== null) ||
    OTHER_SUBSCRIBE_OPTIONS.booleans.some((name) => options.getBoolean(name) !== null) ||
    options.getRole('role') !== null ||
    options.getChannel('notices') !== null
  );
}
