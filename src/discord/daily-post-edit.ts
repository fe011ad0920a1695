import { ButtonStyle, ComponentType, Routes, type APIActionRowComponent, type APIButtonComponentWithCustomId, type APIEmbed, type REST } from 'discord.js';
import { clip } from '../replies/embeds.ts';
import type { DailyButton } from '../schedule/poster.ts';
import { DISCORD_LIMITS } from '../schedule/discord-limits.ts';

/** Discord's most: five buttons in an action row, five rows in a message. */
const ROW_BUTTONS = 5;
const MESSAGE_ROWS = 5;

/**
 * A daily post's buttons (the quiz's answers, Save), as Discord's message components: a new row where a button asks
 * for one or the row is full; what would not fit in five rows is left off.
 */
export function dailyButtonRows(buttons: readonly DailyButton[]): Array<APIActionRowComponent<APIButtonComponentWithCustomId>> {
  const rows: APIButtonComponentWithCustomId[][] = [];
  for (const button of buttons) {
    const last = rows.at(-1);
    const row = last && last.length < ROW_BUTTONS && button.newRow !== true ? last : [];
    if (row !== last) {
      if (rows.length === MESSAGE_ROWS) break;
      rows.push(row);
    }
    row.push({
      type: ComponentType.Button,
      style: ButtonStyle.Secondary,
      custom_id: button.customId,
      label: clip(button.label, DISCORD_LIMITS.buttonLabel),
      disabled: button.disabled ?? false,
    });
  }
  return rows.map((components) => ({ type: ComponentType.ActionRow, components }));
}

/** Edits a daily post in place (the quiz's reveal): its embeds and buttons, pinging nobody. */
export function dailyPostEditor(rest: REST) {
  return async (channelId: string, messageId: string, update: { embeds: APIEmbed[]; buttons: DailyButton[] }): Promise<void> => {
    await rest.patch(Routes.channelMessage(channelId, messageId), {
      body: { embeds: update.embeds, components: dailyButtonRows(update.buttons), allowed_mentions: { parse: [] } },
    });
  };
}
