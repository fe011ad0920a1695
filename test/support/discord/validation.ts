/**
 * Payload validation with Discord's limits. Problems are collected into Discord's nested error tree
 * (`{ embeds: { 0: { title: { _errors: [{ code, message }] } } } }`) and returned as a 400 with code 50035.
 */

export interface FieldError {
  code: string;
  message: string;
}

export interface ErrorTree {
  _errors?: FieldError[];
  [key: string]: ErrorTree | FieldError[] | undefined;
}

export class FormErrors {
  readonly tree: ErrorTree = {};
  count = 0;

  add(path: (string | number)[], code: string, message: string): void {
    let node = this.tree;
    for (const key of path) {
      const k = String(key);
      const next = node[k];
      if (next === undefined || Array.isArray(next)) {
        const created: ErrorTree = {};
        node[k] = created;
        node = created;
      } else {
        node = next;
      }
    }
    (node._errors ??= []).push({ code, message });
    this.count += 1;
  }

  get empty(): boolean {
    return this.count === 0;
  }
}

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
  actionRows: 5,
  rowComponents: 5,
  customId: 100,
  buttonLabel: 80,
  mentionIds: 100,
  nonce: 25,
} as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function maxLength(errors: FormErrors, path: (string | number)[], value: unknown, max: number, required = false): number {
  if (value === undefined || value === null) {
    if (required) errors.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    return 0;
  }
  if (typeof value !== 'string') {
    errors.add(path, 'BASE_TYPE_STRING', 'Must be a string.');
    return 0;
  }
  if (required && value.length === 0) errors.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
  if (value.length > max) errors.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  return value.length;
}

function checkUrl(errors: FormErrors, path: (string | number)[], value: unknown, schemes = ['http:', 'https:']): void {
  if (value === undefined || value === null) return;
  let ok = false;
  if (typeof value === 'string') {
    try {
      ok = schemes.includes(new URL(value).protocol);
    } catch {
      ok = false;
    }
  }
  if (!ok) errors.add(path, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
}

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
        } else parsed.add(p);
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
    ids.forEach((id: unknown, i: number) => {
      if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) {
        errors.add(['allowed_mentions', key, i], 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`);
      }
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

function validateComponents(errors: FormErrors, value: unknown): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    errors.add(['components'], 'BASE_TYPE_LIST', 'Must be a list.');
    return;
  }
  if (value.length > LIMITS.actionRows) {
    errors.add(['components'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.actionRows} or fewer in length.`);
  }
  const customIds = new Set<string>();
  value.forEach((row: unknown, r: number) => {
    if (!isObject(row) || row.type !== 1) {
      errors.add(['components', r, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1}.');
      return;
    }
    const children = row.components;
    if (!Array.isArray(children) || children.length === 0) {
      errors.add(['components', r, 'components'], 'BASE_TYPE_MIN_LENGTH', 'Must be 1 or more in length.');
      return;
    }
    if (children.length > LIMITS.rowComponents) {
      errors.add(['components', r, 'components'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.rowComponents} or fewer in length.`);
    }
    children.forEach((c: unknown, i: number) => {
      const path = ['components', r, 'components', i];
      if (!isObject(c)) {
        errors.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
        return;
      }
      if (c.type !== 2) {
        // Select menus and other components are accepted as they are; the bot uses buttons.
        if (typeof c.custom_id === 'string') maxLength(errors, [...path, 'custom_id'], c.custom_id, LIMITS.customId, true);
        return;
      }
      const style = c.style;
      if (typeof style !== 'number' || !Number.isInteger(style) || style < 1 || style > 6) {
        errors.add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6}.');
      }
      maxLength(errors, [...path, 'label'], c.label, LIMITS.buttonLabel);
      if (style === 5) {
        if (c.custom_id !== undefined) errors.add([...path, 'custom_id'], 'COMPONENT_LINK_BUTTON_CUSTOM_ID', 'A link button cannot have a custom id.');
        if (c.url === undefined) errors.add([...path, 'url'], 'BASE_TYPE_REQUIRED', 'This field is required');
        else checkUrl(errors, [...path, 'url'], c.url, ['http:', 'https:', 'discord:']);
      } else if (style !== 6) {
        maxLength(errors, [...path, 'custom_id'], c.custom_id, LIMITS.customId, true);
        if (typeof c.custom_id === 'string') {
          if (customIds.has(c.custom_id)) {
            errors.add([...path, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
          }
          customIds.add(c.custom_id);
        }
        if (c.label === undefined && c.emoji === undefined) {
          errors.add([...path, 'label'], 'BASE_TYPE_REQUIRED', 'This field is required');
        }
      }
    });
  });
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
  return errors;
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
