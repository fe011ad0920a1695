import { ButtonStyle, ComponentType, Routes, type APIActionRowComponent, type APIButtonComponentWithCustomId, type APIEmbed, type REST } from 'discord.js';
import { clip } from '../replies/embeds.ts';
import type { DailyButton } from '../schedule/poster.ts';
import { DISCORD_LIMITS } from '../schedule/discord-limits.ts';

/** A daily post's buttons (the quiz's), as Discord's message components: one row of at most five. */
export function dailyButtonRows(buttons: readonly DailyButton[]): Array<APIActionRowComponent<APIButtonComponentWithCustomId>> {
  if (buttons.length === 0) return [];
  const components = buttons.slice(0, 5).map(
    (button): APIButtonComponentWithCustomId => ({
      type: ComponentType.Button,
      style: ButtonStyle.Secondary,
      custom_id: button.customId,
      label: clip(button.label, DISCORD_LIMITS.buttonLabel),
      disabled: button.disabled ?? false,
    }),
  );
  return [{ type: ComponentType.ActionRow, components }];
}

/** Edits a daily post in place (the quiz's reveal): its embeds and buttons, pinging nobody. */
export function dailyPostEditor(rest: REST) {
  return async (channelId: string, messageId: string, update: { embeds: APIEmbed[]; buttons: DailyButton[] }): Promise<void> => {
    await rest.patch(Routes.channelMessage(channelId, messageId), {
      body: { embeds: update.embeds, components: dailyButtonRows(update.buttons), allowed_mentions: { parse: [] } },
    });
  };
}
