/**
 * The spec's zod schemas as the local server checks with them: every object strict (an unknown key is a violation),
 * with the allow-list's deviations (spec-deviations.ts) put in place, and zod's issues turned into one line per
 * field. discord-api-spec builds its schemas when it is loaded, so its own `setStrictObject` comes too late for us:
 * the strict copies are made here, once per schema, by rebuilding each object with `catchall: never`.
 */
import * as z from 'zod/mini';
import type * as core from 'zod/v4/core';
import * as spec from 'discord-api-spec/zod';
import { DEVIATIONS, type Deviation } from './spec-deviations.ts';

export type Schema = z.ZodMiniType;

/** The spec's component schemas by name (`MessageResponseSchema`…). */
export type SpecSchemaName = { [K in keyof typeof spec]: (typeof spec)[K] extends Schema ? K : never }[keyof typeof spec];

export const specSchemas: { readonly [K in SpecSchemaName]: (typeof spec)[K] } = spec;

/** Where no body is sent or answered (a GET, a 204). */
export const NO_BODY = z.undefined();

type AnyDef = Record<string, unknown> & { type: string };

/** Called with a deviation's id each time a payload needed it. */
export type DeviationUse = (id: string) => void;

interface Options {
  deviations: readonly Deviation[];
  onDeviation: DeviationUse;
}

/** Makes strict copies of spec schemas, with deviations; one copy per original schema. */
export class StrictSchemas {
  private readonly copies = new WeakMap<object, Schema>();
  /** Deviations for a property the spec lacks (added to the object), or whose schema is one of the spec's named ones. */
  private readonly fieldPatches = new Map<object, Map<string, Deviation>>();
  /** Deviations that replace a whole schema: a named one, or the schema of one property of an object. */
  private readonly wholePatches = new Map<object, Deviation>();

  constructor(private readonly options: Options) {
    const named = new Set<object>(Object.values(specSchemas));
    for (const deviation of options.deviations) {
      for (const { schema, field } of deviation.at) {
        const original = specSchemas[schema];
        if (field === undefined) {
          this.wholePatches.set(original, deviation);
          continue;
        }
        // A property the spec has is patched where its schema is, so objects built from this one (the gateway's
        // GUILD_CREATE channels: the channel without guild_id) get the deviation too.
        const own = (original._zod.def as unknown as { shape?: Record<string, Schema> }).shape?.[field];
        if (own && !named.has(own)) {
          this.wholePatches.set(own, deviation);
          continue;
        }
        const fields = this.fieldPatches.get(original) ?? new Map<string, Deviation>();
        fields.set(field, deviation);
        this.fieldPatches.set(original, fields);
      }
    }
  }

  strict<T extends Schema>(schema: T): T {
    return this.copy(schema) as T;
  }

  private copy(schema: Schema): Schema {
    const known = this.copies.get(schema);
    if (known) return known;
    const whole = this.wholePatches.get(schema);
    // The spec's own version (strict, for judging whether the deviation was needed) refers back to the patched one.
    const made = whole ? this.relaxed(whole, this.plainCopy(schema)) : this.plainCopy(schema);
    this.copies.set(schema, made);
    return made;
  }

  private plainCopy(schema: Schema): Schema {
    const def = schema._zod.def as unknown as AnyDef;
    const sub = (inner: unknown): Schema => this.copy(inner as Schema);
    let made: Schema;
    switch (def.type) {
      case 'object': {
        const shape: Record<string, Schema> = Object.fromEntries(Object.entries(def.shape as Record<string, Schema>).map(([key, value]) => [key, sub(value)]));
        for (const [key, deviation] of this.fieldPatches.get(schema) ?? []) shape[key] = this.relaxed(deviation, shape[key]);
        // A schema built with an explicit catchall (a loose or record-like object) keeps it.
        made = schema.clone({ ...def, shape, catchall: def.catchall ?? z.never() } as never);
        break;
      }
      case 'lazy': {
        const getter = def.getter as () => Schema;
        made = schema.clone({ ...def, getter: () => sub(getter()) } as never);
        break;
      }
      case 'array':
        made = schema.clone({ ...def, element: sub(def.element) } as never);
        break;
      case 'optional':
      case 'nullable':
      case 'nonoptional':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
        made = schema.clone({ ...def, innerType: sub(def.innerType) } as never);
        break;
      case 'union':
        made = schema.clone({ ...def, options: (def.options as Schema[]).map(sub) } as never);
        break;
      case 'intersection':
        made = schema.clone({ ...def, left: sub(def.left), right: sub(def.right) } as never);
        break;
      case 'record':
        made = schema.clone({ ...def, keyType: sub(def.keyType), valueType: sub(def.valueType) } as never);
        break;
      case 'tuple':
        made = schema.clone({ ...def, items: (def.items as Schema[]).map(sub), rest: def.rest ? sub(def.rest) : def.rest } as never);
        break;
      case 'pipe':
        made = schema.clone({ ...def, in: sub(def.in), out: sub(def.out) } as never);
        break;
      default:
        // Leaves: strings, numbers, literals, enums…
        made = schema;
    }
    return made;
  }

  /**
   * The deviation's schema in place of the spec's (`original`, undefined for a property the spec lacks); a value
   * only the deviation accepts marks it as needed.
   */
  private relaxed(deviation: Deviation, original: Schema | undefined): Schema {
    const allowed = this.copy(deviation.allow(original));
    const { onDeviation } = this.options;
    return allowed.clone().check((payload) => {
      if (payload.issues.length === 0 && (original === undefined ? payload.value !== undefined : !original.safeParse(payload.value).success)) onDeviation(deviation.id);
    });
  }
}

/** One violated rule: where (a dotted path below the payload) and what. */
export interface FieldIssue {
  field: string;
  message: string;
}

const english = z.locales.en();

/** Checks `value`; an empty list when it fits. */
export function issuesOf(schema: Schema, value: unknown, root: string): FieldIssue[] {
  const result = schema.safeParse(value, { error: english.localeError });
  return result.success ? [] : flatten(result.error.issues, root);
}

function fieldName(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}${text ? '.' : ''}${String(key)}`), root);
}

/**
 * One line per field. An unknown key is its own field; a union that no option fits is explained by the option that
 * came closest (the one whose `type` matched, then the one with the fewest issues), so a bad button inside a row
 * names the button's field rather than "no option matched".
 */
function flatten(issues: readonly core.$ZodIssue[], root: string, prefix: readonly PropertyKey[] = []): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: fieldName(root, [...path, key]), message: 'not in the spec (unknown key)' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = closestOption(issue.errors);
      if (closest) out.push(...flatten(closest, root, path));
      else out.push({ field: fieldName(root, path), message: `fits none of the ${issue.errors.length} shapes the spec allows here` });
    } else {
      out.push({ field: fieldName(root, path), message: issue.message });
    }
  }
  return out;
}

function closestOption(options: readonly (readonly core.$ZodIssue[])[]): readonly core.$ZodIssue[] | undefined {
  const wrongKind = (issues: readonly core.$ZodIssue[]): boolean =>
    issues.some(
      (i) =>
        (i.path.length === 0 && i.code === 'invalid_type') ||
        (i.path.length === 1 && i.path[0] === 'type' && (i.code === 'invalid_value' || i.code === 'invalid_type')),
    );
  const candidates = options.filter((issues) => !wrongKind(issues));
  if (candidates.length === 0) return undefined;
  return candidates.reduce((best, issues) => (issues.length < best.length ? issues : best));
}
