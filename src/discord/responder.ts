import { MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { OutgoingMessage } from '../replies/interactions.ts';
import { newMessagePayload, replacementPayload, replyPayload } from './interaction-payloads.ts';
import type { SendingHooks } from './sending-hooks.ts';

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

/** The acknowledgements, made once: what an interaction has been sent is one of these. */
export const NOT_ACKNOWLEDGED: Acknowledgement = { kind: 'none' };
export const COMPONENT_ACKNOWLEDGED: Acknowledgement = { kind: 'component' };
const PUBLIC_REPLY: Acknowledgement = { kind: 'reply', ephemeral: false };
const PRIVATE_REPLY: Acknowledgement = { kind: 'reply', ephemeral: true };
const GONE: Acknowledgement = { kind: 'gone' };
const MODAL: Acknowledgement = { kind: 'modal' };

const replyAck = (ephemeral: boolean): Acknowledgement => (ephemeral ? PRIVATE_REPLY : PUBLIC_REPLY);

/** Shared bookkeeping of what has been sent for one interaction. */
export class Responder {
  ack: Acknowledgement = NOT_ACKNOWLEDGED;
  answered = false;
  /**
   * Deferrals and answers go out one at a time: two must never race to be the interaction's first response. One
   * that finds the turn free takes it at once (no promise for it); the others wait here in order.
   */
  private busy = false;
  private waiting: Array<() => void> | undefined;

  constructor(
    private readonly interaction: RepliableInteraction,
    /** Told of what respond and followUp send (the contexts tell them of their other sending methods). */
    private readonly hooks: SendingHooks | undefined,
  ) {}

  get acknowledged(): boolean {
    return this.ack.kind !== 'none';
  }

  /** Undefined when the turn was free and is now taken; else a promise of it. */
  private takeTurn(): Promise<void> | undefined {
    if (!this.busy) {
      this.busy = true;
      return undefined;
    }
    return new Promise((resolve) => (this.waiting ??= []).push(resolve));
  }

  private passTurn(): void {
    const next = this.waiting?.shift();
    if (next) next();
    else this.busy = false;
  }

  /** Defers unless something was sent already (by the time its turn comes). */
  async deferReply(ephemeral: boolean): Promise<void> {
    const turn = this.takeTurn();
    if (turn) await turn;
    try {
      if (this.acknowledged) return;
      await this.interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
      this.ack = replyAck(ephemeral);
    } finally {
      this.passTurn();
    }
  }

  /** Sends the answer where it goes now (see the module comment), telling the hooks. */
  respond(message: OutgoingMessage): Promise<void> {
    this.hooks?.sending(message);
    const turn = this.takeTurn();
    return turn ? turn.then(() => this.sendInTurn(message, false)) : this.sendInTurn(message, false);
  }

  /** Sends a new message after the answer (the answer itself when there is none yet), telling the hooks. */
  followUp(message: OutgoingMessage): Promise<void> {
    this.hooks?.sending(message);
    const turn = this.takeTurn();
    return turn ? turn.then(() => this.sendInTurn(message, true)) : this.sendInTurn(message, true);
  }

  /** One async frame for the whole answer: where it goes is decided when its turn has come. */
  private async sendInTurn(message: OutgoingMessage, followUp: boolean): Promise<void> {
    try {
      const ack = this.ack;
      if (followUp && ack.kind !== 'none') await this.interaction.followUp(newMessagePayload(message));
      else {
        switch (ack.kind) {
          case 'none':
            await this.interaction.reply(replyPayload(this.interaction, message));
            this.ack = replyAck(message.ephemeral ?? false);
            break;
          case 'reply':
            if (message.ephemeral && !ack.ephemeral) {
              await this.interaction.deleteReply();
              this.ack = GONE;
              await this.interaction.followUp(newMessagePayload(message));
            } else await this.interaction.editReply(replacementPayload(message));
            break;
          case 'component':
          case 'gone':
          case 'modal':
            await this.interaction.followUp(newMessagePayload(message));
            break;
        }
        this.answered = true;
      }
    } finally {
      this.passTurn();
    }
    this.hooks?.responded();
  }

  /** Answers with a form, unless something was sent already. */
  async showModal(send: () => Promise<unknown>): Promise<void> {
    const turn = this.takeTurn();
    if (turn) await turn;
    try {
      if (this.acknowledged) throw new Error('a form can only be the first answer to an interaction');
      await send();
      this.ack = MODAL;
      this.answered = true;
    } finally {
      this.passTurn();
    }
  }

}
