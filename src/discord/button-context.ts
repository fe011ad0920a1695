import type { ButtonInteraction } from 'discord.js';
import type { ButtonContext, OutgoingMessage } from '../replies/interactions.ts';
import { replacementPayload, updatePayload } from './interaction-payloads.ts';
import { RespondableContext } from './respondable-context.ts';
import type { SendingHooks, TrackedResponses } from './sending-hooks.ts';
import { COMPONENT_ACKNOWLEDGED } from './responder.ts';

class DiscordButtonContext extends RespondableContext implements ButtonContext {
  readonly customId: string;
  readonly messageId: string;

  constructor(
    private readonly interaction: ButtonInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(interaction, hooks);
    this.customId = interaction.customId;
    this.messageId = interaction.message.id;
  }

  /** Public: a deferred update of the button's message (the usual case); ephemeral: a private "thinking" reply. */
  async defer(options?: { ephemeral?: boolean }): Promise<void> {
    this.hooks?.sending(options);
    const responder = this.responder;
    if (!responder.acknowledged) {
      if (options?.ephemeral) await responder.deferReply(true);
      else {
        await this.interaction.deferUpdate();
        responder.ack = COMPONENT_ACKNOWLEDGED;
      }
    }
    this.hooks?.responded();
  }

  async update(message: OutgoingMessage): Promise<void> {
    this.hooks?.sending(message);
    await this.updateNow(message);
    this.hooks?.responded();
  }

  private async updateNow(message: OutgoingMessage): Promise<void> {
    const responder = this.responder;
    switch (responder.ack.kind) {
      case 'none':
        await this.interaction.update(updatePayload(this.interaction, message));
        responder.ack = COMPONENT_ACKNOWLEDGED;
        responder.answered = true;
        return;
      case 'component':
        await this.interaction.editReply(replacementPayload(message));
        responder.answered = true;
        return;
      // After a private deferral the button's message is out of reach; the answer goes where the member looks.
      case 'reply':
      case 'gone':
        await responder.respond(message);
        return;
    }
  }
}

export function createButtonContext(interaction: ButtonInteraction, hooks?: SendingHooks): ButtonContext & TrackedResponses {
  return new DiscordButtonContext(interaction, hooks);
}
