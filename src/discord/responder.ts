import { MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { OutgoingMessage } from '../replies/interactions.ts';
import { newMessagePayload, replacementPayload } from './interaction-payloads.ts';

/**
 * What the command and button contexts have sent for one interaction, and so where the next answer goes.
 *
 * Where an answer goes depends on what the interaction has already been sent:
 * - nothing yet: `respond` replies (callback type 4), `update` replaces the button's message (type 7);
 * - a deferred or sent reply: `respond` edits it (PATCH @original); an ephemeral answer to a public reply deletes it
 *   and is sent as an ephemeral follow-up, since Discord cannot turn a public message private;
 * - a deferred update or an update of the button's message: `update` edits that message (PATCH @original) and
 *   `respond` sends a follow-up message.
 */

export type Acknowledgement =
  /** Nothing sent yet. */
  | { kind: 'none' }
  /** A reply of ours (deferred or sent) is the original response. */
  | { kind: 'reply'; ephemeral: boolean }
  /** The original response is the message the button sits on (deferred update or update). */
  | { kind: 'component' }
  /** The original reply was deleted to make way for an ephemeral follow-up; later answers are follow-ups. */
  | { kind: 'gone' }
  /** A form (modal) was the answer: what is typed in it comes back as an interaction of its own. */
  | { kind: 'modal' };

export type RepliableInteraction = ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction;

/** Shared bookkeeping of what has been sent for one interaction. */
export class Responder {
  ack: Acknowledgement = { kind: 'none' };
  answered = false;
  /** Deferrals and answers go out one at a time: two must never race to be the interaction's first response. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly interaction: RepliableInteraction) {}

  get acknowledged(): boolean {
    return this.ack.kind !== 'none';
  }

  private inTurn<T>(send: () => Promise<T>): Promise<T> {
    const next = this.last.then(send, send);
    this.last = next.catch(() => undefined);
    return next;
  }

  /** Defers unless something was sent already (by the time its turn comes). */
  deferReply(ephemeral: boolean): Promise<void> {
    return this.inTurn(async () => {
      if (this.acknowledged) return;
      await this.interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
      this.ack = { kind: 'reply', ephemeral };
    });
  }

  respond(message: OutgoingMessage): Promise<void> {
    return this.inTurn(() => this.respondNow(message));
  }

  private async respondNow(message: OutgoingMessage): Promise<void> {
    const ack = this.ack;
    switch (ack.kind) {
      case 'none':
        await this.interaction.reply(newMessagePayload(message));
        this.ack = { kind: 'reply', ephemeral: message.ephemeral ?? false };
        break;
      case 'reply':
        if (message.ephemeral && !ack.ephemeral) {
          await this.interaction.deleteReply();
          this.ack = { kind: 'gone' };
          await this.interaction.followUp(newMessagePayload(message));
          break;
        }
        await this.interaction.editReply(replacementPayload(message));
        break;
      case 'component':
      case 'gone':
      case 'modal':
        await this.interaction.followUp(newMessagePayload(message));
        break;
    }
    this.answered = true;
  }

  /** Answers with a form, unless something was sent already. */
  showModal(send: () => Promise<unknown>): Promise<void> {
    return this.inTurn(async () => {
      if (this.acknowledged) throw new Error('a form can only be the first answer to an interaction');
      await send();
      this.ack = { kind: 'modal' };
      this.answered = true;
    });
  }

  followUp(message: OutgoingMessage): Promise<void> {
    return this.inTurn(async () => {
      if (this.ack.kind === 'none') {
        await this.respondNow(message);
        return;
      }
      await this.interaction.followUp(newMessagePayload(message));
    });
  }
}
