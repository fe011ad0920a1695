/**
 * Message payload validation with Discord's limits: content, embeds, allowed_mentions, components (see
 * component-validation.ts), flags, nonce, message_reference; autocomplete choices. Problems go into a FormErrors tree.
 */
import { validateComponents } from './component-validation.ts';
import { checkSnowflake, checkUrl, FormErrors, isObject, maxLength, SNOWFLAKE } from './form-errors.ts';

export { FormErrors } from './form-errors.ts';

type Json = Record<string, unknown>;

export const LIMITS = {
  content: 2000,
  embeds: 10,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  embedTotal: 6000,
  mentionIds: 100,
  nonce: 25,
} as const;

/** Validates one embed and returns its character count toward the 6000 total. */
function validateEmbed(errors: FormErrors, path: (string | number)[], embed: unknown): number {
  if (!isObject(embed)) {
    errors.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return 0;
  }
  let total = 0;
  total += maxLength(errors, [...path, 'title'], embed.title, LIMITS.embedTitle);
  total += maxLength(errors, [...path, 'description'], embed.description, LIMITS.embedDescription);
  checkUrl(errors, [...path, 'url'], embed.url);
  if (embed.color !== undefined && embed.color !== null) {
    if (typeof embed.color !== 'number' || !Number.isInteger(embed.color) || embed.color < 0 || embed.color > 0xffffff) {
      errors.add([...path, 'color'], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 16777215.');
    }
  }
  if (embed.timestamp !== undefined && embed.timestamp !== null) {
    if (typeof embed.timestamp !== 'string' || Number.isNaN(Date.parse(embed.timestamp))) {
      errors.add([...path, 'timestamp'], 'DATE_TYPE_PARSE', 'Could not parse timestamp. Should be ISO8601.');
    }
  }
  if (embed.footer !== undefined) {
    if (!isObject(embed.footer)) errors.add([...path, 'footer'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    else {
      total += maxLength(errors, [...path, 'footer', 'text'], embed.footer.text, LIMITS.footerText, true);
      checkUrl(errors, [...path, 'footer', 'icon_url'], embed.footer.icon_url, ['http:', 'https:', 'attachment:']);
    }
  }
  if (embed.author !== undefined) {
    if (!isObject(embed.author)) errors.add([...path, 'author'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    else {
      total += maxLength(errors, [...path, 'author', 'name'], embed.author.name, LIMITS.authorName, true);
      checkUrl(errors, [...path, 'author', 'url'], embed.author.url);
    }
  }
  for (const key of ['image', 'thumbnail'] as const) {
    const media = embed[key];
    if (media === undefined) continue;
    if (!isObject(media)) errors.add([...path, key], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    else checkUrl(errors, [...path, key, 'url'], media.url ?? null, ['http:', 'https:', 'attachment:']);
  }
  if (embed.fields !== undefined) {
    if (!Array.isArray(embed.fields)) {
      errors.add([...path, 'fields'], 'BASE_TYPE_LIST', 'Must be a list.');
    } else {
      if (embed.fields.length > LIMITS.embedFields) {
        errors.add([...path, 'fields'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.embedFields} or fewer in length.`);
      }
      embed.fields.forEach((field: unknown, i: number) => {
        const fieldPath = [...path, 'fields', i];
        if (!isObject(field)) {
          errors.add(fieldPath, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
          return;
        }
        total += maxLength(errors, [...fieldPath, 'name'], field.name, LIMITS.fieldName, true);
        total += maxLength(errors, [...fieldPath, 'value'], field.value, LIMITS.fieldValue, true);
        if (field.inline !== undefined && typeof field.inline !== 'boolean') {
          errors.add([...fieldPath, 'inline'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
        }
      });
    }
  }
  return total;
}

/**
 * allowed_mentions' lists are sets: Discord refuses the message when one holds a value twice, naming the repeat
 * (observed: `{ allowed_mentions: { users: { 1: { _errors: [{ code: "SET_TYPE_ALREADY_CONTAINS_VALUE" }] } } } }`).
 */
function alreadyInSet(errors: FormErrors, path: (string | number)[], value: string): void {
  errors.add(path, 'SET_TYPE_ALREADY_CONTAINS_VALUE', `The set already contains "${value}".`);
}

function validateAllowedMentions(errors: FormErrors, value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) {
    errors.add(['allowed_mentions'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return;
  }
  const parse = value.parse;
  const parsed = new Set<string>();
  if (parse !== undefined) {
    if (!Array.isArray(parse)) errors.add(['allowed_mentions', 'parse'], 'BASE_TYPE_LIST', 'Must be a list.');
    else
      parse.forEach((p: unknown, i: number) => {
        if (p !== 'roles' && p !== 'users' && p !== 'everyone') {
          errors.add(['allowed_mentions', 'parse', i], 'BASE_TYPE_CHOICES', `Value must be one of {'everyone', 'roles', 'users'}.`);
        } else if (parsed.has(p)) alreadyInSet(errors, ['allowed_mentions', 'parse', i], p);
        else parsed.add(p);
      });
  }
  for (const key of ['roles', 'users'] as const) {
    const ids = value[key];
    if (ids === undefined) continue;
    if (!Array.isArray(ids)) {
      errors.add(['allowed_mentions', key], 'BASE_TYPE_LIST', 'Must be a list.');
      continue;
    }
    if (ids.length > LIMITS.mentionIds) {
      errors.add(['allowed_mentions', key], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.mentionIds} or fewer in length.`);
    }
    const seen = new Set<string>();
    ids.forEach((id: unknown, i: number) => {
      if (typeof id !== 'string' || !SNOWFLAKE.test(id)) {
        errors.add(['allowed_mentions', key, i], 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`);
      } else if (seen.has(id)) alreadyInSet(errors, ['allowed_mentions', key, i], id);
      else seen.add(id);
    });
    if (parsed.has(key) && ids.length > 0) {
      errors.add(
        ['allowed_mentions'],
        'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        `parse:["${key}"] and ${key}: [ids...] are mutually exclusive.`,
      );
    }
  }
  if (value.replied_user !== undefined && typeof value.replied_user !== 'boolean') {
    errors.add(['allowed_mentions', 'replied_user'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
}

/** Message flags a sender may set: SUPPRESS_EMBEDS 4, SUPPRESS_NOTIFICATIONS 4096, IS_COMPONENTS_V2 32768, plus EPHEMERAL 64 for interactions. */
const CHANNEL_FLAGS = 4 | 4096 | 32768;
const INTERACTION_FLAGS = CHANNEL_FLAGS | 64;

export interface MessageValidation {
  /** 'create' requires some content; 'edit' accepts a partial body. */
  mode: 'create' | 'edit';
  /** Interaction responses and follow-ups may carry EPHEMERAL. */
  interaction: boolean;
}

export function validateMessageBody(body: Json, options: MessageValidation): FormErrors {
  const errors = new FormErrors();
  if (body.content !== undefined && body.content !== null) maxLength(errors, ['content'], body.content, LIMITS.content);
  if (body.embeds !== undefined && body.embeds !== null) {
    if (!Array.isArray(body.embeds)) errors.add(['embeds'], 'BASE_TYPE_LIST', 'Must be a list.');
    else {
      if (body.embeds.length > LIMITS.embeds) {
        errors.add(['embeds'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.embeds} or fewer in length.`);
      }
      let total = 0;
      body.embeds.forEach((embed: unknown, i: number) => {
        total += validateEmbed(errors, ['embeds', i], embed);
      });
      if (total > LIMITS.embedTotal) {
        errors.add(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`);
      }
    }
  }
  validateAllowedMentions(errors, body.allowed_mentions);
  validateComponents(errors, body.components);
  if (body.flags !== undefined && body.flags !== null) {
    const allowed = options.interaction ? INTERACTION_FLAGS : CHANNEL_FLAGS;
    if (typeof body.flags !== 'number' || !Number.isInteger(body.flags) || (body.flags & ~allowed) !== 0) {
      errors.add(['flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid flags.');
    }
  }
  if (body.nonce !== undefined && body.nonce !== null) {
    const nonce = body.nonce;
    if (typeof nonce === 'string') maxLength(errors, ['nonce'], nonce, LIMITS.nonce);
    else if (typeof nonce !== 'number' || !Number.isInteger(nonce)) errors.add(['nonce'], 'BASE_TYPE_STRING', 'Must be a string.');
  }
  if (body.enforce_nonce !== undefined && typeof body.enforce_nonce !== 'boolean') {
    errors.add(['enforce_nonce'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
  validateMessageReference(errors, body.message_reference);
  return errors;
}

/** A reply's or forward's message_reference: the message's snowflake (required), optional channel and guild snowflakes. */
function validateMessageReference(errors: FormErrors, value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) {
    errors.add(['message_reference'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return;
  }
  if (value.message_id === undefined || value.message_id === null) {
    errors.add(['message_reference', 'message_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
  } else checkSnowflake(errors, ['message_reference', 'message_id'], value.message_id);
  for (const key of ['channel_id', 'guild_id'] as const) {
    if (value[key] !== undefined && value[key] !== null) checkSnowflake(errors, ['message_reference', key], value[key]);
  }
  if (value.fail_if_not_exists !== undefined && value.fail_if_not_exists !== null && typeof value.fail_if_not_exists !== 'boolean') {
    errors.add(['message_reference', 'fail_if_not_exists'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
  if (value.type !== undefined && value.type !== null && value.type !== 0 && value.type !== 1) {
    errors.add(['message_reference', 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {0, 1}.');
  }
}

/** Discord's "Cannot send an empty message" (50006) check for message creation. */
export function isEmptyMessage(body: Json): boolean {
  const hasContent = typeof body.content === 'string' && body.content.trim().length > 0;
  const hasEmbeds = Array.isArray(body.embeds) && body.embeds.length > 0;
  const hasComponents = Array.isArray(body.components) && body.components.length > 0;
  const hasFiles = Array.isArray(body.attachments) && body.attachments.length > 0;
  const hasStickers = Array.isArray(body.sticker_ids) && body.sticker_ids.length > 0;
  return !(hasContent || hasEmbeds || hasComponents || hasFiles || hasStickers || body.poll !== undefined);
}

export function validateAutocompleteChoices(body: Json): FormErrors {
  const errors = new FormErrors();
  const choices = body.choices;
  if (!Array.isArray(choices)) {
    errors.add(['choices'], 'BASE_TYPE_REQUIRED', 'This field is required');
    return errors;
  }
  if (choices.length > 25) errors.add(['choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  choices.forEach((choice: unknown, i: number) => {
    if (!isObject(choice)) {
      errors.add(['choices', i], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      return;
    }
    const nameLength = maxLength(errors, ['choices', i, 'name'], choice.name, 100, true);
    if (choice.name !== undefined && nameLength === 0) {
      errors.add(['choices', i, 'name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    const value = choice.value;
    if (typeof value === 'string') maxLength(errors, ['choices', i, 'value'], value, 100);
    else if (typeof value !== 'number') errors.add(['choices', i, 'value'], 'BASE_TYPE_REQUIRED', 'This field is required');
  });
  return errors;
}
