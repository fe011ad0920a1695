/** An interaction in flight as the server keeps it, and the InteractionHandle a test watches it through. */
import type { GatewayDispatch } from './gateway.ts';
import { MessageFlag, viewMessage, type StoredMessage } from './messages.ts';
import type { User } from './model.ts';
import type { InteractionHandle, RecordedCallback } from './public-types.ts';
import type { Changes } from './wait.ts';

type Json = Record<string, unknown>;

export interface InteractionState {
  id: string;
  token: string;
  type: number;
  guildId: string | null;
  channelId: string;
  user: User;
  sentAt: number;
  payload: Json;
  dispatch: GatewayDispatch | undefined;
  callbacks: RecordedCallback[];
  acknowledged: RecordedCallback | undefined;
  /** The message the response lives in: a new message for commands, the clicked message for components. */
  original: StoredMessage | undefined;
  followUps: StoredMessage[];
  choices: { name: string; value: string | number }[] | undefined;
  /** The form the bot answered with (callback type 9), as it sent it; a member may submit it once. */
  modal?: Json | undefined;
  modalSubmitted?: boolean;
  /** Only the user install authorized it (authorizing_integration_owners has no "0"): at most 5 follow-ups. */
  userInstallOnly: boolean;
  /** Discord makes every response ephemeral: a user-installed app in a server where the member may not use external apps. */
  forceEphemeral: boolean;
}

export function handleFor(changes: Changes, state: InteractionState): InteractionHandle {
  const until = changes.until.bind(changes);
  const isResponse = (m: StoredMessage | undefined): boolean => {
    if (!m || (m.flags & MessageFlag.Loading) !== 0) return false;
    // For a component, the clicked message only counts once the bot updated or edited it; a reply of its own
    // (callback 4, or 5 once its deferral is edited) counts as for a command.
    if (state.type === 3 && m.interactionId !== state.id) return state.acknowledged !== undefined && m.revisions.length > 1;
    return true;
  };
  return {
    id: state.id,
    token: state.token,
    type: state.type,
    guildId: state.guildId,
    channelId: state.channelId,
    userId: state.user.id,
    sentAt: state.sentAt,
    payload: state.payload,
    get deliveredTo() {
      return (state.dispatch?.to ?? []).map((t) => ({ sessionId: t.sessionId, shard: [...t.shard] as [number, number] }));
    },
    get callbacks() {
      return [...state.callbacks];
    },
    get callback() {
      return state.acknowledged;
    },
    get original() {
      return state.original ? viewMessage(state.original) : undefined;
    },
    get followUps() {
      return state.followUps.map(viewMessage);
    },
    get choices() {
      return state.choices;
    },
    get modal() {
      return state.modal;
    },
    waitForCallback: (timeoutMs = 5000) =>
      until(() => state.acknowledged ?? state.callbacks[0], `a callback for interaction ${state.id}`, timeoutMs),
    waitForResponse: (timeoutMs = 5000, signal) =>
      until(
        () => (isResponse(state.original) && state.original ? viewMessage(state.original) : undefined),
        `the response to interaction ${state.id}`,
        timeoutMs,
        signal,
      ),
    waitForOriginal: (predicate, timeoutMs = 5000) =>
      until(
        () => {
          if (!state.original) return undefined;
          const view = viewMessage(state.original);
          return predicate(view) ? view : undefined;
        },
        `the original response of interaction ${state.id} to match`,
        timeoutMs,
      ),
    waitForFollowUp: (index = 0, timeoutMs = 5000, signal) =>
      until(
        () => {
          const m = state.followUps[index];
          return m ? viewMessage(m) : undefined;
        },
        `follow-up #${index + 1} of interaction ${state.id}`,
        timeoutMs,
        signal,
      ),
  };
}

