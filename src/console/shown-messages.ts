import type { ButtonSpec } from '../replies/interactions.ts';
import type { Translate } from '../replies/i18n/translate.ts';
import { terminalText } from '../replies/terminal-text.ts';
import { typed } from './parse.ts';
import { renderButtons } from './render.ts';

/** Where a daily post printed at the console was posted: its buttons are pressed there, on that message. */
export interface PostPlace {
  channelId: string;
  messageId: string;
}

/** A message on screen that has buttons, so they can still be pressed later, as in Discord. */
export interface ShownMessage {
  /** What it goes by at the console, shown before its buttons: `press #3 Older`. */
  number: number;
  /** What made it, as typed (or which daily post it is): said when one of its buttons is pressed. */
  source: string;
  buttons: ButtonSpec[];
  /** A daily post's place; absent for the console's own replies. */
  post?: PostPlace;
}

const KEPT_MESSAGES = 50;

/** The latest messages with buttons, replies and daily posts alike, by the numbers they go by. */
export class ShownMessages {
  private readonly list: ShownMessage[] = [];
  private nextNumber = 1;

  /** A number for a new message. */
  take(): number {
    return this.nextNumber++;
  }

  add(message: ShownMessage): void {
    this.list.push(message);
    if (this.list.length > KEPT_MESSAGES) this.list.shift();
  }

  remove(message: ShownMessage): void {
    const index = this.list.indexOf(message);
    if (index >= 0) this.list.splice(index, 1);
  }

  /** The daily post with this message id, if it is still kept. */
  byPost(messageId: string): ShownMessage | undefined {
    return this.list.find((message) => message.post?.messageId === messageId);
  }

  /**
   * The button `target` (a label, any case, or a number) of message #`number`, or of the latest message with buttons
   * when no number is given; otherwise what to say instead.
   */
  find(target: string, number: number | null, t: Translate): { message: ShownMessage; button: ButtonSpec } | string {
    const latest = this.list.at(-1);
    if (!latest) return t('console.press.none');
    const message = number === null ? latest : this.list.find((candidate) => candidate.number === number);
    if (!message) return t('console.press.noMessage', { number: String(number), latest: String(latest.number) });
    const byNumber = /^\d+$/.test(target);
    const wanted = target.toLowerCase();
    const matches = (button: ButtonSpec) => button.label.toLowerCase() === wanted;
    const button = byNumber ? message.buttons[Number(target) - 1] : message.buttons.find(matches);
    if (!button) {
      const named = byNumber ? typed(target) : `“${typed(target)}”`;
      // A label the member saw on an earlier message: say where it is rather than press it unasked.
      const earlier = byNumber ? undefined : this.list.findLast((other) => other !== message && other.buttons.some((candidate) => matches(candidate) && !candidate.disabled));
      const hint = earlier ? ` ${t('console.press.elsewhere', { number: String(earlier.number), label: typed(target) })}` : '';
      return t('console.press.noButton', { number: String(message.number), named, buttons: renderButtons(message.buttons, t), hint });
    }
    if (button.disabled) return t('console.press.disabled', { label: terminalText(button.label), number: String(message.number) });
    return { message, button };
  }

  /**
   * Tab completion after `press `: the labels of the buttons that can be pressed on the latest message (or on
   * message #n after `press #n `), and the message numbers after `press #`. As readline wants it: the choices and the
   * text they complete.
   */
  completePress(line: string): [string[], string] {
    const rest = line.replace(/^\s*press\s+/i, '');
    if (/^#\d*$/.test(rest)) return [this.list.map((message) => `#${message.number} `), rest];
    const reference = /^#(\d{1,9})\s+/.exec(rest);
    const message = reference ? this.list.find((candidate) => candidate.number === Number(reference[1])) : this.list.at(-1);
    const label = reference ? rest.slice(reference[0].length) : rest;
    const labels = (message?.buttons ?? []).filter((button) => !button.disabled).map((button) => terminalText(button.label));
    return [labels, label];
  }
}
