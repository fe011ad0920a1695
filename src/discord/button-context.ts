import type { ButtonInteraction } from 'discord.js';
import type { ButtonContext, OutgoingMessage } from '../replies/interactions.ts';
import { replacementPayload } from './interaction-payloads.ts';
import { RespondableContext } from './respondable-context.ts';
import { watched, type SendingHooks, type TrackedResponses } from './sending-hooks.ts';

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
  defer(options?: { ephemeral?: boolean }): Promise<void> {
    return watched(this.hooks, options, async () => {
      const responder = this.responder;
      if (responder.acknowledged) return;
      if (options?.ephemeral) {
        await responder.deferReply(true);
        return;
      }
      await this.interaction.deferUpdate();
      responder.ack = { kind: 'component' };
    });
  }

  update(message: OutgoingMessage): Promise<void> {
    return watched(this.hooks, message, async () => {
      const responder = this.responder;
      switch (responder.ack.kind) {
        case 'none':
          await this.interaction.update(replacementPayload(message));
          responder.ack = { kind: 'component' };
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
    });
  }
}

export function createButtonContext(interaction: ButtonInteraction, hooks?: SendingHooks): ButtonContext & TrackedResponses {
  return new DiscordButtonContext(interaction, hooks);
}
