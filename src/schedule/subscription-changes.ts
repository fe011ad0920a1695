import { postStyleOf, type PostStyle, type Subscription } from './subscription.ts';

/** A setting that subscribing again changed, from what to what; the replies say each one. */
export type SubscriptionChange =
  | { setting: 'time' | 'timeZone'; from: string; to: string }
  | { setting: 'role'; from: string | null; to: string | null }
  | { setting: 'style'; from: PostStyle; to: PostStyle }
  | { setting: 'thread' | 'publish' | 'quiz' | 'review'; from: boolean; to: boolean }
  | { setting: 'language'; from: string | null; to: string | null };

/** What subscribing again changed of `previous`, in the order the command's options come. */
export function subscriptionChanges(previous: Subscription, next: Subscription): SubscriptionChange[] {
  const changes: SubscriptionChange[] = [];
  if (previous.time !== next.time) changes.push({ setting: 'time', from: previous.time, to: next.time });
  if (previous.timeZone !== next.timeZone) changes.push({ setting: 'timeZone', from: previous.timeZone, to: next.timeZone });
  if (previous.roleId !== next.roleId) changes.push({ setting: 'role', from: previous.roleId, to: next.roleId });
  if (postStyleOf(previous) !== postStyleOf(next)) changes.push({ setting: 'style', from: postStyleOf(previous), to: postStyleOf(next) });
  const thread = { from: previous.openThread === true, to: next.openThread === true };
  if (thread.from !== thread.to) changes.push({ setting: 'thread', ...thread });
  const publish = { from: previous.publish === true, to: next.publish === true };
  if (publish.from !== publish.to) changes.push({ setting: 'publish', ...publish });
  const language = { from: previous.language ?? null, to: next.language ?? null };
  if (language.from !== language.to) changes.push({ setting: 'language', ...language });
  const quiz = { from: previous.quiz === true, to: next.quiz === true };
  if (quiz.from !== quiz.to) changes.push({ setting: 'quiz', ...quiz });
  const review = { from: previous.review === true, to: next.review === true };
  if (review.from !== review.to) changes.push({ setting: 'review', ...review });
  return changes;
}
