/**
 * The bot keeps no discord.js channel objects on purpose (see createDiscordClient in discord/client.ts), for which
 * discord.js emits an UnsupportedCacheOverwriteWarning each time a process creates its client. Node's own printer
 * keeps showing every other warning. Call once, early, in a process that runs the bot.
 */
export function hideChannelCacheWarning(): void {
  const [printWarning] = process.listeners('warning');
  if (!printWarning) return;
  process.off('warning', printWarning);
  process.on('warning', (warning) => {
    if (warning.name !== 'UnsupportedCacheOverwriteWarning') printWarning(warning);
  });
}
