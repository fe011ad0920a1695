/**
 * Interactions and their webhook: the callback (3 s deadline, one acknowledgement), then the original response and
 * follow-ups through /webhooks/:application_id/:token for 15 minutes.
 */
import { ApiError, invalidForm, prefixErrors, unknown } from './api-error.ts';
import type { InteractionState } from './interaction-state.ts';
import { createMessage, editMessage, MessageFlag, serializeMessage, type StoredFile, type StoredMessage } from './messages.ts';
import { checkMessage } from './message-routes.ts';
import { executeChannelWebhook } from './channel-webhook-routes.ts';
import type { RecordedCallback } from './public-types.ts';
import { bucketHash, WEBHOOK_RULE } from './ratelimit.ts';
import { ok, type RouteResult, type RouteTable } from './route-table.ts';
import { FormErrors, isEmptyMessage, validateAutocompleteChoices, validateMessageBody } from './validation.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

/** Follow-ups an interaction of a user-installed app (not installed in the guild) may create. */
const USER_INSTALL_FOLLOW_UPS = 5;

export function defineWebhookRoutes(table: RouteTable, world: World): void {
  table.on(
    'POST',
    '/interactions/:interaction_id/:interaction_token/callback',
    ({ params, body, query, attachments, files }) => interactionCallback(world, params, body, query, attachments, files),
    { auth: false, globalExempt: true, bucket: null },
  );
  const webhookBucket = (params: Record<string, string>) => ({
    hash: bucketHash('webhook'),
    major: `${params.webhook_id ?? ''}:${params.webhook_token ?? ''}`,
    rule: WEBHOOK_RULE,
  });
  const hook = { auth: false, globalExempt: true, bucket: webhookBucket };
  const base = '/webhooks/:webhook_id/:webhook_token';
  // The application's id is the interaction webhook's; any other is a channel webhook (channel-webhook-routes.ts).
  table.on(
    'POST',
    base,
    ({ params, body, query, attachments, files }) =>
      params.webhook_id === world.applicationId ? followUp(world, params, body, attachments, files) : executeChannelWebhook(world, params, body, query, attachments),
    hook,
  );
  table.on('GET', `${base}/messages/@original`, ({ params }) => ok(serializeWebhookMessage(world, originalOf(interactionFor(world, params)))), hook);
  table.on('PATCH', `${base}/messages/@original`, ({ params, body, attachments, files }) => ok(editWebhookMessage(world, originalOf(interactionFor(world, params)), body, attachments, files)), hook);
  table.on('DELETE', `${base}/messages/@original`, ({ params }) => deleteWebhookMessage(originalOf(interactionFor(world, params))), hook);
  table.on('GET', `${base}/messages/:message_id`, ({ params }) => ok(serializeWebhookMessage(world, webhookMessage(world, params))), hook);
  table.on('PATCH', `${base}/messages/:message_id`, ({ params, body, attachments, files }) => ok(editWebhookMessage(world, webhookMessage(world, params), body, attachments, files)), hook);
  table.on('DELETE', `${base}/messages/:message_id`, ({ params }) => deleteWebhookMessage(webhookMessage(world, params)), hook);
}

function interactionCallback(world: World, params: Record<string, string>, body: Json, query: URLSearchParams, attachments: Json[], files: StoredFile[]): RouteResult {
  const state = world.interactions.get(params.interaction_id ?? '');
  if (!state || state.token !== params.interaction_token) throw unknown(10062, 'interaction');
  const now = Date.now();
  const type = typeof body.type === 'number' ? body.type : -1;
  const data = typeof body.data === 'object' && body.data !== null ? (body.data as Json) : null;
  const attempt: RecordedCallback = { interactionId: state.id, at: now, latencyMs: now - state.sentAt, type, data, status: 0, errorCode: null };
  state.callbacks.push(attempt);
  const reject = (error: ApiError): never => {
    attempt.status = error.status;
    attempt.errorCode = error.code;
    throw error;
  };
  if (state.acknowledged) reject(new ApiError(400, 40060, 'Interaction has already been acknowledged.'));
  if (now - state.sentAt > world.options.interactionDeadlineMs) reject(unknown(10062, 'interaction'));
  const allowed = state.type === 2 ? [4, 5, 9] : state.type === 3 ? [4, 5, 6, 7, 9] : state.type === 4 ? [8] : state.type === 5 ? [4, 5] : [1];
  if (!allowed.includes(type)) {
    const errors = new FormErrors();
    errors.add(['type'], 'INTERACTION_CALLBACK_TYPE_INVALID', `Interaction callback type ${type} is not valid for interaction type ${state.type}`);
    reject(invalidForm(errors));
  }
  let message: StoredMessage | undefined;
  if (type === 4 || type === 5) {
    const d = data ?? {};
    if (type === 4) {
      const errors = validateMessageBody(d, { mode: 'create', interaction: true });
      if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
      if (attachments.length === 0 && isEmptyMessage(d)) reject(new ApiError(400, 50006, 'Cannot send an empty message'));
    } else if (d.flags !== undefined && (typeof d.flags !== 'number' || (d.flags & ~(64 | 4096)) !== 0)) {
      const errors = new FormErrors();
      errors.add(['data', 'flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid flags.');
      reject(invalidForm(errors));
    }
    const flags = (typeof d.flags === 'number' ? d.flags : 0) | (state.forceEphemeral ? MessageFlag.Ephemeral : 0);
    message = createMessage({
      channelId: state.channelId,
      guildId: state.guildId,
      author: world.botUser,
      body: type === 4 ? d : {},
      flags: type === 5 ? (flags & MessageFlag.Ephemeral) | MessageFlag.Loading : flags,
      attachments,
      files,
      interactionId: state.id,
      webhookId: world.applicationId,
    });
    world.keep(message);
    state.original = message;
  } else if (type === 7) {
    const d = data ?? {};
    const errors = validateMessageBody(d, { mode: 'edit', interaction: true });
    if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
    if (state.original) world.keep(editMessage(state.original, d));
    message = state.original;
  } else if (type === 6) {
    message = state.original;
  } else if (type === 9) {
    const errors = validateModal(data ?? {});
    if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
    state.modal = data ?? {};
  } else if (type === 8) {
    const errors = validateAutocompleteChoices(data ?? {});
    if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
    state.choices = ((data?.choices ?? []) as { name: string; value: string | number }[]).map((c) => ({ name: c.name, value: c.value }));
  }
  attempt.status = query.get('with_response') === 'true' ? 200 : 204;
  state.acknowledged = attempt;
  if (attempt.status === 204) return { status: 204 };
  return {
    status: 200,
    body: {
      interaction: {
        id: state.id,
        type: state.type,
        ...(message
          ? {
              response_message_id: message.id,
              response_message_loading: (message.flags & MessageFlag.Loading) !== 0,
              response_message_ephemeral: (message.flags & MessageFlag.Ephemeral) !== 0,
            }
          : {}),
      },
      ...(message && (type === 4 || type === 5 || type === 7) ? { resource: { type, message: serializeMessage(message, world.applicationId) } } : {}),
    },
  };
}

function interactionFor(world: World, params: Record<string, string>): InteractionState {
  if (params.webhook_id !== world.applicationId) throw unknown(10015, 'Webhook');
  const state = world.interactionsByToken.get(params.webhook_token ?? '');
  if (!state || Date.now() - state.sentAt > world.options.interactionTokenTtlMs) throw new ApiError(401, 50027, 'Invalid Webhook Token');
  return state;
}

function originalOf(state: InteractionState): StoredMessage {
  if (!state.acknowledged || !state.original || state.original.deletedAt !== null) throw unknown(10008, 'Message');
  return state.original;
}

function webhookMessage(world: World, params: Record<string, string>): StoredMessage {
  const state = interactionFor(world, params);
  const id = params.message_id;
  const message = state.original?.id === id && state.acknowledged ? state.original : state.followUps.find((m) => m.id === id);
  if (!message || message.deletedAt !== null) throw unknown(10008, 'Message');
  return message;
}

function serializeWebhookMessage(world: World, message: StoredMessage): Json {
  return serializeMessage(message, world.applicationId);
}

function editWebhookMessage(world: World, message: StoredMessage, body: Json, attachments: Json[], files: StoredFile[]): Json {
  checkMessage(body, 'edit', true);
  world.keep(editMessage(message, body));
  if (attachments.length > 0) {
    message.attachments = attachments;
    message.files = files;
  } else if (Array.isArray(body.attachments) && body.attachments.length === 0) {
    message.attachments = [];
    message.files = [];
  }
  return serializeMessage(message, world.applicationId);
}

function deleteWebhookMessage(message: StoredMessage): RouteResult {
  message.deletedAt = Date.now();
  return { status: 204 };
}

function followUp(world: World, params: Record<string, string>, body: Json, attachments: Json[], files: StoredFile[]): RouteResult {
  const state = interactionFor(world, params);
  if (!state.acknowledged) throw unknown(10015, 'Webhook');
  checkMessage(body, 'create', true, attachments);
  if (state.userInstallOnly && state.followUps.length >= USER_INSTALL_FOLLOW_UPS) {
    throw new ApiError(400, 40094, 'This interaction has hit the maximum number of follow up messages');
  }
  const message = createMessage({
    channelId: state.channelId,
    guildId: state.guildId,
    author: world.botUser,
    body,
    interactionId: state.id,
    webhookId: world.applicationId,
    attachments,
    files,
    ...(state.forceEphemeral ? { flags: (typeof body.flags === 'number' ? body.flags : 0) | MessageFlag.Ephemeral } : {}),
  });
  world.keep(message);
  state.followUps.push(message);
  // Discord's "Create Followup Message" works as Execute Webhook "but `wait` is always true" (its documentation,
  // interactions/receiving-and-responding): 200 with the message whatever ?wait says. The 204 without ?wait=true is
  // for a channel webhook's token (channel-webhook-routes.ts).
  return { status: 200, body: serializeMessage(message, world.applicationId) };
}

/**
 * What Discord checks in a form beyond the API description's shapes: text input custom ids unique in the form, a
 * prefilled value within the input's min_length..max_length (max_length 1..4000), min_length not above max_length.
 */
function validateModal(data: Json): FormErrors {
  const errors = new FormErrors();
  const seen = new Set<string>();
  const components = Array.isArray(data.components) ? (data.components as Json[]) : [];
  components.forEach((row, index) => {
    const inputs = row.type === 18 ? [row.component as Json] : Array.isArray(row.components) ? (row.components as Json[]) : [];
    inputs.forEach((input, inner) => {
      if (input.type !== 4) return;
      const path = row.type === 18 ? ['components', index, 'component'] : ['components', index, 'components', inner];
      const id = String(input.custom_id);
      if (seen.has(id)) errors.add([...path, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
      seen.add(id);
      const max = typeof input.max_length === 'number' ? input.max_length : 4000;
      const min = typeof input.min_length === 'number' ? input.min_length : 0;
      if (min > max) errors.add([...path, 'min_length'], 'BASE_TYPE_BAD_RANGE', 'min_length must not exceed max_length.');
      const value = typeof input.value === 'string' ? input.value : null;
      if (value !== null && (value.length > max || value.length < min)) {
        errors.add([...path, 'value'], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
      }
    });
  });
  return errors;
}
