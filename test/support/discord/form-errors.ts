/**
 * Discord's form errors: problems collected into its nested error tree
 * (`{ embeds: { 0: { title: { _errors: [{ code, message }] } } } }`), answered as a 400 with code 50035, and the
 * field checks every validator shares.
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

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function maxLength(errors: FormErrors, path: (string | number)[], value: unknown, max: number, required = false): number {
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

export function checkUrl(errors: FormErrors, path: (string | number)[], value: unknown, schemes = ['http:', 'https:']): void {
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

export const SNOWFLAKE = /^\d{1,20}$/;

/** A snowflake id: its digits in a string (the description's SnowflakeType), NUMBER_TYPE_COERCE otherwise. */
export function checkSnowflake(errors: FormErrors, path: (string | number)[], value: unknown): void {
  if (typeof value === 'string' && SNOWFLAKE.test(value)) return;
  errors.add(path, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not snowflake.`);
}
