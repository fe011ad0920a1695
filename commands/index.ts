import type { SlashCommand } from '../src/replies/interactions.ts';
import { wotdCommand } from './wotd.ts';
import { wotdDataCommand } from './wotd-data.ts';
import { wotdFindCommand } from './wotd-find.ts';
import { wotdHistoryCommand } from './wotd-history.ts';
import { wotdSubscribeCommand } from './wotd-subscribe.ts';
import { wotdSubscriptionsCommand } from './wotd-subscriptions.ts';
import { wotdSubscribeMeCommand } from './wotd-subscribe-me.ts';
import { wotdUnsubscribeCommand } from './wotd-unsubscribe.ts';
import { wotdUnsubscribeMeCommand } from './wotd-unsubscribe-me.ts';

/** Every slash command the bot offers, in the order `help` lists them. */
export const commands: SlashCommand[] = [
  wotdCommand,
  wotdHistoryCommand,
  wotdFindCommand,
  wotdSubscribeCommand,
  wotdUnsubscribeCommand,
  wotdSubscriptionsCommand,
  wotdSubscribeMeCommand,
  wotdUnsubscribeMeCommand,
  wotdDataCommand,
];
