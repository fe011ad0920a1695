/**
 * Message components as Discord validates them: up to 5 action rows, each holding up to 5 buttons or one select
 * menu; buttons (style, label, custom id, link url) and select menus (string, user, role, mentionable, channel:
 * custom id, placeholder, min/max values, options, default values, channel types). Custom ids are unique across
 * the message. Limits are those of Discord's API description (discord-api-spec's *ComponentForMessageRequest).
 */
import { checkSnowflake, checkUrl, FormErrors, isObject, maxLength } from './form-errors.ts';

export const COMPONENT_LIMITS = {
  actionRows: 5,
  rowComponents: 5,
  customId: 100,
  buttonLabel: 80,
  placeholder: 150,
  selectValues: 25,
  selectOptions: 25,
  optionText: 100,
  defaultValues: 25,
} as const;

type Json = Record<string, unknown>;
type Path = (string | number)[];

const BUTTON = 2;
const STRING_SELECT = 3;
/** The select menus Discord fills itself (users, roles, mentionables, channels) and the default values each takes. */
const AUTO_SELECT_DEFAULTS = new Map<number, string[]>([
  [5, ['user']],
  [6, ['role']],
  [7, ['user', 'role']],
  [8, ['channel']],
]);
const CHANNEL_TYPES = new Set([0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16]);

export function validateComponents(errors: FormErrors, value: unknown): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    errors.add(['components'], 'BASE_TYPE_LIST', 'Must be a list.');
    return;
  }
  if (value.length > COMPONENT_LIMITS.actionRows) {
    errors.add(['components'], 'BASE_TYPE_MAX_LENGTH', `Must be ${COMPONENT_LIMITS.actionRows} or fewer in length.`);
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
    if (children.length > COMPONENT_LIMITS.rowComponents) {
      errors.add(['components', r, 'components'], 'BASE_TYPE_MAX_LENGTH', `Must be ${COMPONENT_LIMITS.rowComponents} or fewer in length.`);
    }
    // A select menu is as wide as a row: it shares its row with nothing.
    const selects = children.filter((c: unknown) => isObject(c) && isSelect(c.type)).length;
    if (selects > 0 && children.length > 1) {
      errors.add(['components', r, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width');
    }
    children.forEach((c: unknown, i: number) => {
      const path = ['components', r, 'components', i];
      if (!isObject(c)) errors.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      else if (c.type === BUTTON) validateButton(errors, path, c, customIds);
      else if (isSelect(c.type)) validateSelect(errors, path, c, customIds);
      else errors.add([...path, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {2, 3, 5, 6, 7, 8}.');
    });
  });
}

function isSelect(type: unknown): boolean {
  return type === STRING_SELECT || AUTO_SELECT_DEFAULTS.has(Number(type));
}

/** A custom id: required, 1-100 characters, unused by any other component of the message. */
function checkCustomId(errors: FormErrors, path: Path, value: unknown, customIds: Set<string>): void {
  maxLength(errors, [...path, 'custom_id'], value, COMPONENT_LIMITS.customId, true);
  if (typeof value !== 'string') return;
  if (customIds.has(value)) errors.add([...path, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
  customIds.add(value);
}

function validateButton(errors: FormErrors, path: Path, c: Json, customIds: Set<string>): void {
  const style = c.style;
  if (typeof style !== 'number' || !Number.isInteger(style) || style < 1 || style > 6) {
    errors.add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6}.');
  }
  maxLength(errors, [...path, 'label'], c.label, COMPONENT_LIMITS.buttonLabel);
  if (style === 5) {
    if (c.custom_id !== undefined) errors.add([...path, 'custom_id'], 'COMPONENT_LINK_BUTTON_CUSTOM_ID', 'A link button cannot have a custom id.');
    if (c.url === undefined) errors.add([...path, 'url'], 'BASE_TYPE_REQUIRED', 'This field is required');
    else checkUrl(errors, [...path, 'url'], c.url, ['http:', 'https:', 'discord:']);
  } else if (style !== 6) {
    checkCustomId(errors, path, c.custom_id, customIds);
    if (c.label === undefined && c.emoji === undefined) errors.add([...path, 'label'], 'BASE_TYPE_REQUIRED', 'This field is required');
  }
}

/** An optional whole number in [min, max]; returns it, or undefined when absent or wrong. */
function checkCount(errors: FormErrors, path: Path, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    errors.add(path, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not int.`);
    return undefined;
  }
  if (value < min) errors.add(path, 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${min}.`);
  else if (value > max) errors.add(path, 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${max}.`);
  else return value;
  return undefined;
}

function validateSelect(errors: FormErrors, path: Path, c: Json, customIds: Set<string>): void {
  const type = Number(c.type);
  checkCustomId(errors, path, c.custom_id, customIds);
  maxLength(errors, [...path, 'placeholder'], c.placeholder, COMPONENT_LIMITS.placeholder);
  if (c.disabled !== undefined && c.disabled !== null && typeof c.disabled !== 'boolean') {
    errors.add([...path, 'disabled'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
  const minValues = checkCount(errors, [...path, 'min_values'], c.min_values, 0, COMPONENT_LIMITS.selectValues) ?? 1;
  const maxValues = checkCount(errors, [...path, 'max_values'], c.max_values, 1, COMPONENT_LIMITS.selectValues) ?? 1;
  if (minValues > maxValues) {
    errors.add([...path, 'min_values'], 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${maxValues}.`);
  }
  if (type === STRING_SELECT) {
    const defaults = validateOptions(errors, path, c.options, minValues, maxValues);
    if (defaults > maxValues) {
      errors.add([...path, 'options'], 'SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES', 'The specified number of default values exceeds the specified maximum values');
    }
    return;
  }
  const kinds = AUTO_SELECT_DEFAULTS.get(type) ?? [];
  const defaults = c.default_values;
  if (defaults !== undefined && defaults !== null) {
    if (!Array.isArray(defaults)) errors.add([...path, 'default_values'], 'BASE_TYPE_LIST', 'Must be a list.');
    else {
      if (defaults.length > COMPONENT_LIMITS.defaultValues) {
        errors.add([...path, 'default_values'], 'BASE_TYPE_MAX_LENGTH', `Must be ${COMPONENT_LIMITS.defaultValues} or fewer in length.`);
      } else if (defaults.length > maxValues) {
        errors.add([...path, 'default_values'], 'SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES', 'The specified number of default values exceeds the specified maximum values');
      }
      defaults.forEach((d: unknown, i: number) => {
        const at = [...path, 'default_values', i];
        if (!isObject(d)) {
          errors.add(at, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
          return;
        }
        checkSnowflake(errors, [...at, 'id'], d.id);
        if (typeof d.type !== 'string' || !kinds.includes(d.type)) {
          errors.add([...at, 'type'], 'BASE_TYPE_CHOICES', `Value must be one of {${kinds.map((k) => `'${k}'`).join(', ')}}.`);
        }
      });
    }
  }
  const channelTypes = c.channel_types;
  if (type === 8 && channelTypes !== undefined && channelTypes !== null) {
    if (!Array.isArray(channelTypes)) errors.add([...path, 'channel_types'], 'BASE_TYPE_LIST', 'Must be a list.');
    else {
      channelTypes.forEach((t: unknown, i: number) => {
        if (typeof t !== 'number' || !CHANNEL_TYPES.has(t)) {
          errors.add([...path, 'channel_types', i], 'BASE_TYPE_CHOICES', `Value must be one of {${[...CHANNEL_TYPES].join(', ')}}.`);
        }
      });
    }
  }
}

/** A string select's options: 1-25, each with a label and a unique value (1-100), at least min_values of them; returns how many are default. */
function validateOptions(errors: FormErrors, path: Path, options: unknown, minValues: number, maxValues: number): number {
  const at = [...path, 'options'];
  if (options === undefined || options === null) {
    errors.add(at, 'BASE_TYPE_REQUIRED', 'This field is required');
    return 0;
  }
  if (!Array.isArray(options)) {
    errors.add(at, 'BASE_TYPE_LIST', 'Must be a list.');
    return 0;
  }
  if (options.length < 1 || options.length > COMPONENT_LIMITS.selectOptions) {
    errors.add(at, 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${COMPONENT_LIMITS.selectOptions} in length.`);
    return 0;
  }
  // A menu cannot ask for more picks than it offers.
  if (minValues > options.length) errors.add([...path, 'min_values'], 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${options.length}.`);
  if (maxValues > options.length) errors.add([...path, 'max_values'], 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${options.length}.`);
  const values = new Set<string>();
  let defaults = 0;
  options.forEach((option: unknown, i: number) => {
    const o = [...at, i];
    if (!isObject(option)) {
      errors.add(o, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      return;
    }
    maxLength(errors, [...o, 'label'], option.label, COMPONENT_LIMITS.optionText, true);
    maxLength(errors, [...o, 'value'], option.value, COMPONENT_LIMITS.optionText, true);
    maxLength(errors, [...o, 'description'], option.description, COMPONENT_LIMITS.optionText);
    if (typeof option.value === 'string') {
      if (values.has(option.value)) errors.add([...o, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED', 'The specified option value is already used');
      values.add(option.value);
    }
    if (option.default !== undefined && option.default !== null && typeof option.default !== 'boolean') {
      errors.add([...o, 'default'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    }
    if (option.default === true) defaults += 1;
    if (option.emoji !== undefined && option.emoji !== null && !isObject(option.emoji)) {
      errors.add([...o, 'emoji'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    }
  });
  return defaults;
}
