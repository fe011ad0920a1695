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
import { wotdLeaderboardCommand } from './wotd-leaderboard.ts';
import { wotdQuizCommand } from './wotd-quiz.ts';
import { wotdReviewCommand } from './wotd-review.ts';
import { wotdStreakCommand } from './wotd-streak.ts';
import { wotdWordsCommand } from './wotd-words.ts';

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
  wotdWordsCommand,
  wotdReviewCommand,
  wotdQuizCommand,
  wotdStreakCommand,
  wotdLeaderboardCommand,
];
