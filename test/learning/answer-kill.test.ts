import { afterEach, expect, it } from 'vitest';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { postgresBackend, redisBackend, sqliteBackend, type StoreBackend } from '../support/store-backends.ts';
import { answerWorld, MEMBER, PROBES, stepsTraced, type AnswerWorld, type BotProcess, type QuizPlace } from './answer-kill-world.ts';

/**
 * Issue 36, "a test kills the process at every step of an answer and checks". A member answers a channel's daily
 * quiz on a real bot process (`wotd-bot start` on the local Discord server), and the process is killed (SIGKILL)
 * at one step of the answer: at each of the learning store's statements in turn, stopped there by the answer-hold
 * hook after the interaction was deferred (the statement not run, or run and its result not yet heard), or once the
 * reply reached Discord. Discord sends nothing again; the member presses again on a new process. The answer must
 * count exactly once, the streak and total be exactly right (a right answer the day before, so two), and the member
 * be told the answer if the first press left nothing, or that they already answered, and were right.
 * Every step on SQLite; on PostgreSQL and Redis the steps around the answer's write.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ALREADY = 'You already answered this quiz, and you were right.';

/** Where the process dies: held before or after the answer's `step`-th statement, or once the reply reached Discord. */
type Step = { hold: number; when: 'before' | 'after'; committed: boolean; label: string } | { reply: true; committed: true; label: string };

/**
 * Posts every quiz, and learns the steps of a right answer: a probe member presses the right letter on the probe
 * server's quiz while the hook names its statements, on a process that has not read that quiz yet, as each process
 * below has not (a later press of a quiz on the same process finds its record kept, and its steps are these without
 * the read).
 */
async function postAndProbe(world: AnswerWorld): Promise<{ quizzes: QuizPlace[]; steps: string[] }> {
  const poster = await world.start();
  for (const guild of world.guilds) await world.discord.waitForMessages(guild.channelId('quiz'), 1, 60_000);
  await world.stop(poster);
  const quizzes = await world.quizzes();
  const probe = quizzes[0];
  if (!probe) throw new Error('no probe quiz');
  const bot = await world.start({ WOTD_TEST_ANSWER_TRACE: probe.channelId });
  const reply = (await world.press(probe, probe.correct, PROBES[0]).waitForResponse(10_000)).content ?? '';
  expect(reply).toMatch(/^Right! /);
  // The hook names the answer's steps from 1; its last is its commit (SQL) or its script (Redis), and its line may
  // come after the reply.
  const steps = () => stepsTraced(bot.stderr(), probe.channelId);
  await expect.poll(() => /: (COMMIT|eval .*)$/.test(steps().at(-1) ?? ''), { timeout: 10_000 }).toBe(true);
  const traced = steps();
  await world.stop(bot);
  expect(traced[0], 'the answer’s first step, its read of the quiz').toMatch(/: (SELECT .*wotd_learning_quizzes|hgetall )/i);
  expect(traced.filter((line) => / step 1 of /.test(line)), 'one answer traced').toHaveLength(1);
  return { quizzes, steps: traced };
}

/** The member's first press, on a process that dies at `step`. */
async function pressAndDie(world: AnswerWorld, bot: BotProcess, place: QuizPlace, step: Step): Promise<void> {
  const press = world.press(place, place.correct);
  if ('reply' in step) {
    expect((await press.waitForResponse(10_000)).content).toMatch(/^Right! /);
  } else {
    // Deferred while the answer is held at its step: the member sees the bot thinking when it dies.
    expect((await press.waitForCallback(10_000)).type).toBe(5);
    await expect.poll(() => bot.stderr().includes(`answer-hold: holding ${place.channelId} ${step.when} step ${step.hold}:`), { timeout: 10_000 }).toBe(true);
  }
  await world.kill(bot);
}

/** The member presses again, on a new process: told the answer or that they already answered, as the store had it. */
async function pressAgain(world: AnswerWorld, place: QuizPlace, step: Step): Promise<void> {
  const reply = await world.press(place, place.correct).waitForResponse(10_000);
  if (step.committed) expect(reply.content, step.label).toBe(ALREADY);
  else {
    expect(reply.content, step.label).toMatch(/^Right! /);
    expect(reply.content, step.label).toContain('Your streak in this server: 2 days.');
  }
  expect(reply.ephemeral).toBe(true);
}

async function killAtEveryStep(location: StoreLocation, choose: (steps: string[]) => Step[], servers: number): Promise<void> {
  const world = await answerWorld(location, servers, cleanups);
  const { quizzes, steps: traced } = await postAndProbe(world);
  const steps = choose(traced);
  expect(steps.length + 1).toBeLessThanOrEqual(servers);
  let previous: { place: QuizPlace; step: Step } | null = null;
  for (const [index, step] of steps.entries()) {
    const place = quizzes[index + 1];
    if (!place) throw new Error('not enough servers for the steps');
    const hook: Record<string, string> = 'reply' in step ? {} : { WOTD_TEST_ANSWER_HOLD: `${place.channelId}:${step.hold}:${step.when}` };
    const bot = await world.start(hook);
    if (previous) await pressAgain(world, previous.place, previous.step);
    await pressAndDie(world, bot, place, step);
    previous = { place, step };
  }
  const last = await world.start();
  if (previous) await pressAgain(world, previous.place, previous.step);
  await world.stop(last);

  const store = await openLearningStore(location);
  cleanups.push(() => store.close());
  const answers = (await store.exportMember(MEMBER)).answers.filter((answer) => answer.day === world.today);
  for (const [index, step] of steps.entries()) {
    const place = quizzes[index + 1];
    if (!place) continue;
    expect(answers.filter((answer) => answer.channelId === place.channelId), step.label).toHaveLength(1);
    expect(await store.getQuiz(place.channelId, world.today), step.label).toMatchObject({ answered: 1, right: 1 });
    expect(await store.streak(place.guildId, MEMBER), step.label).toMatchObject({ current: 2, best: 2, total: 2, lastDay: world.today });
  }
}

const label = (when: string, index: number, traced: string[]) => `${when} step ${index}: ${traced[index - 1]?.replace(/^answer-hold: step \d+ of \d+: /, '') ?? '?'}`;

function backendCase(backend: StoreBackend, servers: number, choose: (traced: string[]) => Step[]): void {
  backend.describe(`an answer killed at its steps, on ${backend.name}`, () => {
    it('counts once, keeps the streak exact, and tells the member what happened when they press again', async () => {
      await killAtEveryStep(await backend.fresh(), choose, servers);
    }, 300_000);
  });
}

// Every statement: before each (the last is COMMIT), after the COMMIT, and once the reply reached Discord.
backendCase(sqliteBackend, 14, (traced) => {
  expect(traced.at(-1)).toMatch(/: COMMIT$/);
  return [
    ...traced.map((_, i): Step => ({ hold: i + 1, when: 'before', committed: false, label: label('before', i + 1, traced) })),
    { hold: traced.length, when: 'after', committed: true, label: label('after', traced.length, traced) },
    { reply: true, committed: true, label: 'once the reply reached Discord' },
  ];
});

// Inside the transaction, after the answer's row was written; and after the COMMIT.
backendCase(postgresBackend, 3, (traced) => {
  const written = traced.findIndex((line) => /INSERT INTO \S*wotd_learning_answers/.test(line)) + 1;
  expect(written).toBeGreaterThan(0);
  expect(traced.at(-1)).toMatch(/: COMMIT$/);
  return [
    { hold: written, when: 'after', committed: false, label: label('after', written, traced) },
    { hold: traced.length, when: 'after', committed: true, label: label('after', traced.length, traced) },
  ];
});

// The answer is one script: before it, and after it.
backendCase(redisBackend, 3, (traced) => {
  expect(traced.at(-1)).toMatch(/: eval /);
  return [
    { hold: traced.length, when: 'before', committed: false, label: label('before', traced.length, traced) },
    { hold: traced.length, when: 'after', committed: true, label: label('after', traced.length, traced) },
  ];
});
