/** Discord's error answers: an ApiError thrown by a route handler becomes `{ message, code, errors? }` with its status. */
import { FormErrors } from './validation.ts';

type Json = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: FormErrors,
  ) {
    super(message);
  }

  body(): Json {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors.tree } : {}) };
  }
}

export const invalidForm = (errors: FormErrors): ApiError => new ApiError(400, 50035, 'Invalid Form Body', errors);
export const unknown = (code: number, what: string): ApiError => new ApiError(404, code, `Unknown ${what}`);

export function mergeErrors(into: FormErrors, from: FormErrors): void {
  const walk = (node: unknown, path: string[]): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '_errors' && Array.isArray(value)) for (const e of value as { code: string; message: string }[]) into.add(path, e.code, e.message);
      else walk(value, [...path, key]);
    }
  };
  walk(from.tree, []);
}

export function prefixErrors(errors: FormErrors, key: string): FormErrors {
  const out = new FormErrors();
  const walk = (node: unknown, path: string[]): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [k, value] of Object.entries(node)) {
      if (k === '_errors' && Array.isArray(value)) for (const e of value as { code: string; message: string }[]) out.add([key, ...path], e.code, e.message);
      else walk(value, [...path, k]);
    }
  };
  walk(errors.tree, []);
  return out;
}
