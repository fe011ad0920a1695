import type { APIEmbed } from 'discord.js';
import type { QuizChoices } from '../learning/quiz-choices.ts';
import type { BoardRow, SavedWord, Streak } from '../learning/learning-store.ts';
import type { Entry } from '../wotd/entry.ts';
import { clip, DISCORD_LIMITS } from '../schedule/discord-limits.ts';
import { discordTimestamp } from './date-text.ts';
import { ACCENT, attribution, escapeText, formatDefinition, formatPosAndIpa } from './embeds.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';
import { dailyQuizButtonId, type QuizRendering } from '../learning/quiz-poster.ts';
import type { DailyButton } from '../schedule/poster.ts';
import type { ButtonSpec, OutgoingMessage } from './interactions.ts';

/**
 * The learning loop's messages (saved words, review, quizzes, streaks), in the reader's language. Every text comes
 * from the catalogs; what the service wrote is escaped and cut to Discord's limits.
 */

export const WORDS_PREFIX = 'words';
export const REVIEW_PREFIX = 'review';
export const QUIZ_PREFIX = 'quiz';
export const BOARD_PREFIX = 'board';

/** Each of a quiz's four definitions is cut to this, so four of them and the heading fit an embed's description. */
const CHOICE_LIMIT = 900;
export const CHOICE_LETTERS = ['A', 'B', 'C', 'D'] as const;

/** A button label of the service's text (a word), within Discord's 80 characters. */
function label(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim(), DISCORD_LIMITS.buttonLabel);
}

/** A word inside bold text, escaped and short enough for any message it goes into. */
export function shownWord(word: string): string {
  return escapeText(clip(word, 200));
}

export function saveButtonId(date: string): string {
  return `${WORDS_PREFIX}:save:${date}`;
}

/** The Save button under one entry (/wotd, the daily post). */
export function saveButton(t: Translate, date: string): ButtonSpec {
  return { customId: saveButtonId(date), label: t('learning.save.button'), style: 'secondary' };
}

/** A daily post's Save button for its day's word, in the post's language (src/learning/save-poster.ts). */
export function dailySaveButton(day: string, language: string | null): DailyButton {
  const { customId, label: text } = saveButton(translatorFor(language), day);
  return { customId, label: text };
}

/** Save buttons for several entries (history, find), one each, named by word, at most `room`. */
export function saveButtons(t: Translate, entries: readonly Entry[], room: number): ButtonSpec[] {
  return entries.slice(0, Math.max(0, room)).map((entry) => ({
    customId: saveButtonId(entry.date),
    label: label(t('learning.save.buttonWord', { word: entry.word })),
    style: 'secondary',
  }));
}

export function savedWordsMessage(t: Translate, view: { words: SavedWord[]; total: number; page: number; pages: number }): OutgoingMessage {
  if (view.total === 0) return { ephemeral: true, content: t('learning.words.empty') };
  const lines = view.words.map((word) =>
    t('learning.words.line', { word: shownWord(word.word), pos: escapeText(clip(word.pos, 60)), date: word.date, due: discordTimestamp(new Date(word.due), 'R') }),
  );
  const embed: APIEmbed = {
    title: t('learning.words.title'),
    description: clip(lines.join('\n'), DISCORD_LIMITS.embedDescription),
    color: ACCENT,
    footer: { text: t('learning.words.footer', { page: view.page + 1, pages: view.pages, total: view.total }) },
  };
  const buttons: ButtonSpec[] = [
    { customId: `${WORDS_PREFIX}:page:${view.page - 1}`, label: t('learning.words.newer'), style: 'secondary', disabled: view.page <= 0 },
    { customId: `${WORDS_PREFIX}:page:${view.page + 1}`, label: t('learning.words.older'), style: 'secondary', disabled: view.page >= view.pages - 1 },
    ...view.words.map((word): ButtonSpec => ({
      customId: `${WORDS_PREFIX}:rm:${word.date}:${view.page}`,
      label: label(t('learning.words.remove', { word: word.word })),
      style: 'danger',
    })),
  ];
  return { ephemeral: true, embeds: [embed], buttons };
}

/** The daily DM's line for a member with `count` saved words due (a DM subscription with review on), in its language. */
export function reviewReminderLine(count: number, language: string | null): string {
  const t = translatorFor(language);
  return t('learning.review.reminder', { count, command: `/${t('command.wotd-review.name')}` });
}

/**
 * A review button's id: the member it is for (checked against whoever presses it), the word's day, and for a grade
 * the grade.
 */
export function reviewButtonId(userId: string, step: 'show' | 'grade', date: string, grade?: string): string {
  return `${REVIEW_PREFIX}:${step}:${userId}:${date}${grade ? `:${grade}` : ''}`;
}

/** The review's question for member `userId`: the word alone, and a button to see its meaning. */
export function reviewPrompt(t: Translate, userId: string, word: SavedWord, due: number, note?: string): OutgoingMessage {
  const lines = [note, t('learning.review.prompt', { word: shownWord(word.word), pos: escapeText(clip(word.pos, 60)) }), `-# ${t('learning.review.dueCount', { count: due })}`];
  return {
    ephemeral: true,
    content: clip(lines.filter(Boolean).join('\n\n'), DISCORD_LIMITS.content),
    buttons: [{ customId: reviewButtonId(userId, 'show', word.date), label: t('learning.review.reveal'), style: 'primary' }],
  };
}

/** The meaning, and the four grades, for member `userId`. */
export function reviewAnswer(t: Translate, userId: string, entry: Entry): OutgoingMessage {
  const content = t('learning.review.meaning', {
    word: shownWord(entry.word),
    pos: escapeText(clip(entry.pos, 60)),
    definition: clip(formatDefinition(entry.definition), 1_500),
  });
  const grades = ['again', 'hard', 'good', 'easy'] as const;
  return {
    ephemeral: true,
    content: clip(content, DISCORD_LIMITS.content),
    buttons: grades.map((grade) => ({
      customId: reviewButtonId(userId, 'grade', entry.date, grade),
      label: t(`learning.review.${grade}`),
      style: grade === 'again' ? 'danger' : grade === 'good' ? 'primary' : 'secondary',
    })),
  };
}

/** The quiz's embed: the word, its part of speech and IPA, and the four meanings lettered A to D. */
export function quizEmbed(t: Translate, quiz: QuizChoices, siteUrl: string, note: string): APIEmbed {
  const heading = formatPosAndIpa(quiz.entry);
  const choices = quiz.definitions.map((definition, index) => `**${CHOICE_LETTERS[index]}.** ${clip(formatDefinition(definition), CHOICE_LIMIT)}`);
  return {
    title: clip(t('learning.quiz.title', { word: clip(quiz.entry.word, 200) }), DISCORD_LIMITS.embedTitle),
    url: siteUrl,
    description: clip([heading, ...choices].filter(Boolean).join('\n\n'), DISCORD_LIMITS.embedDescription),
    color: ACCENT,
    footer: { text: clip(`${note}\n${quiz.entry.date} · ${attribution(siteUrl)}`, DISCORD_LIMITS.footerText) },
  };
}

/** Four lettered buttons; `customId(i)` gives each its id. */
export function choiceButtons(customId: (index: number) => string, disabled = false): ButtonSpec[] {
  return CHOICE_LETTERS.map((letter, index) => ({ customId: customId(index), label: letter, style: 'secondary', disabled }));
}

/** What a member is told privately after answering: right or wrong, with the real definition. */
export function answerNote(t: Translate, entry: Entry, right: boolean, streak?: Streak | null): string {
  const verdict = t(right ? 'learning.quiz.right' : 'learning.quiz.wrong', {
    word: shownWord(entry.word),
    definition: clip(formatDefinition(entry.definition), 1_500),
  });
  const streakLine = right && streak ? `\n\n${t('learning.quiz.streak', { current: streak.current })}` : '';
  return clip(`${verdict}${streakLine}`, DISCORD_LIMITS.content);
}

/** A press after the quiz closed: it does not count, and the member learns the word all the same. */
export function closedNote(t: Translate, entry: Entry): string {
  return clip(t('learning.quiz.closed', { word: shownWord(entry.word), definition: clip(formatDefinition(entry.definition), 1_500) }), DISCORD_LIMITS.content);
}

export function streakNote(t: Translate, streak: Streak | null): string {
  if (!streak || streak.total === 0) return t('learning.streak.none');
  return t('learning.streak.show', { current: streak.current, best: streak.best, total: streak.total });
}

export function leaderboardMessage(
  t: Translate,
  view: { rows: BoardRow[]; members: number; page: number; pages: number; ownRank: number | null },
): OutgoingMessage {
  if (view.members === 0) return { ephemeral: true, content: t('learning.board.empty') };
  const lines = view.rows.map((row) =>
    t('learning.board.row', { rank: row.rank, member: `<@${row.userId}>`, current: row.current, total: row.total }),
  );
  const own = view.ownRank === null ? t('learning.board.notYou') : t('learning.board.you', { rank: view.ownRank, members: view.members });
  return {
    ephemeral: true,
    embeds: [
      {
        title: t('learning.board.title'),
        description: clip(`${lines.join('\n')}\n\n${own}`, DISCORD_LIMITS.embedDescription),
        color: ACCENT,
        footer: { text: t('learning.board.footer', { page: view.page + 1, pages: view.pages }) },
      },
    ],
    buttons: [
      { customId: `${BOARD_PREFIX}:page:${view.page - 1}`, label: t('learning.page.previous'), style: 'secondary', disabled: view.page <= 0 },
      { customId: `${BOARD_PREFIX}:page:${view.page + 1}`, label: t('learning.page.next'), style: 'secondary', disabled: view.page >= view.pages - 1 },
    ],
  };
}

/** The daily quiz post, in the channel's language: its question with four buttons, and its reveal once closed (with Save). */
export function quizRendering(siteUrl: string): QuizRendering {
  return {
    question(quiz, language, parts) {
      const t = translatorFor(language);
      // The channel's parts: its part of speech and IPA shown only when chosen (the choices are the definitions).
      const entry = parts ? { ...quiz.entry, pos: parts.includes('pos') ? quiz.entry.pos : '', ipa: parts.includes('ipa') ? quiz.entry.ipa : '' } : quiz.entry;
      return {
        embeds: [quizEmbed(t, { ...quiz, entry }, siteUrl, t('learning.quiz.dailyFooter'))],
        buttons: CHOICE_LETTERS.map((letter, index) => ({ customId: dailyQuizButtonId(quiz.entry.date, index), label: letter })),
      };
    },
    reveal(entry, post) {
      const t = translatorFor(post.language);
      const answer = `**${CHOICE_LETTERS[post.correct] ?? '?'}.** ${clip(formatDefinition(entry.definition), 3_000)}`;
      const lines = [formatPosAndIpa(entry), t('learning.quiz.revealed', { definition: answer }), t('learning.quiz.tally', { answered: post.answered, right: post.right })];
      return {
        embeds: [
          {
            title: clip(t('learning.quiz.title', { word: clip(entry.word, 200) }), DISCORD_LIMITS.embedTitle),
            url: siteUrl,
            description: clip(lines.filter(Boolean).join('\n\n'), DISCORD_LIMITS.embedDescription),
            color: ACCENT,
            footer: { text: clip(`${entry.date} · ${attribution(siteUrl)}`, DISCORD_LIMITS.footerText) },
          },
        ],
        // The edit replaces the post's buttons: Save (src/learning/save-poster.ts) stays, on its row under the answers.
        buttons: [
          ...CHOICE_LETTERS.map((letter, index) => ({ customId: dailyQuizButtonId(post.day, index), label: letter, disabled: true })),
          { ...dailySaveButton(post.day, post.language), newRow: true },
        ],
      };
    },
  };
}
