import { snowflake } from './snowflake.ts';
import { DISCORD_LOCALE_CODES, NAME, validateLocalizations } from './command-localizations.ts';
import { FormErrors } from './validation.ts';

/**
 * Application command registration (global and per guild) and the Discord client's side of invoking a command:
 * turning `{ word: 'serendipity' }` into typed options checked against the registered definition, as the real
 * client does before it ever sends an interaction.
 */

type Json = Record<string, unknown>;

export const OptionType = {
  Subcommand: 1,
  SubcommandGroup: 2,
  String: 3,
  Integer: 4,
  Boolean: 5,
  User: 6,
  Channel: 7,
  Role: 8,
  Mentionable: 9,
  Number: 10,
  Attachment: 11,
} as const;

export interface RegisteredCommand extends Json {
  id: string;
  application_id: string;
  guild_id?: string;
  name: string;
  description: string;
  type: number;
  options?: Json[];
  version: string;
}


function validateOptions(errors: FormErrors, path: (string | number)[], options: unknown, depth: number): void {
  if (options === undefined || options === null) return;
  if (!Array.isArray(options)) {
    errors.add(path, 'BASE_TYPE_LIST', 'Must be a list.');
    return;
  }
  if (options.length > 25) errors.add(path, 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  const names = new Set<string>();
  // Each locale's option names, localized where a localization is given: unique within the level too.
  const localizedNames = new Map<string, Set<string>>();
  let sawOptional = false;
  options.forEach((option: unknown, i: number) => {
    const p = [...path, i];
    if (typeof option !== 'object' || option === null) {
      errors.add(p, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      return;
    }
    const o = option as Json;
    const type = o.type;
    if (typeof type !== 'number' || type < 1 || type > 11) {
      errors.add([...p, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}.');
      return;
    }
    if (typeof o.name !== 'string' || !NAME.test(o.name) || o.name !== o.name.toLowerCase()) {
      errors.add([...p, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    } else if (names.has(o.name)) {
      errors.add([...p, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option name already exists');
    } else names.add(o.name);
    const localized = validateLocalizations(errors, [...p, 'name_localizations'], o.name_localizations, 'name');
    for (const locale of DISCORD_LOCALE_CODES) {
      const name = localized.get(locale) ?? (typeof o.name === 'string' ? o.name : undefined);
      if (name === undefined) continue;
      const seen = localizedNames.get(locale) ?? new Set<string>();
      if (localized.has(locale) && seen.has(name)) {
        errors.add([...p, 'name_localizations', locale], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option name already exists');
      }
      seen.add(name);
      localizedNames.set(locale, seen);
    }
    if (typeof o.description !== 'string' || o.description.length < 1 || o.description.length > 100) {
      errors.add([...p, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    validateLocalizations(errors, [...p, 'description_localizations'], o.description_localizations, 'description');
    const isSub = type === OptionType.Subcommand || type === OptionType.SubcommandGroup;
    if (isSub) {
      if (depth >= (type === OptionType.SubcommandGroup ? 1 : 2)) {
        errors.add([...p, 'type'], 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'Subcommands cannot be nested this deep');
      }
      validateOptions(errors, [...p, 'options'], o.options, depth + 1);
      return;
    }
    if (o.required === true) {
      if (sawOptional) errors.add([...p, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    } else sawOptional = true;
    if (o.choices !== undefined) {
      if (!Array.isArray(o.choices)) errors.add([...p, 'choices'], 'BASE_TYPE_LIST', 'Must be a list.');
      else if (o.choices.length > 25) errors.add([...p, 'choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
      if (Array.isArray(o.choices)) {
        o.choices.forEach((choice: unknown, c: number) => {
          const named = typeof choice === 'object' && choice !== null ? (choice as Json) : {};
          if (typeof named.name !== 'string' || named.name.length < 1 || named.name.length > 100) {
            errors.add([...p, 'choices', c, 'name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
          }
          validateLocalizations(errors, [...p, 'choices', c, 'name_localizations'], named.name_localizations, 'choice');
        });
      }
      if (o.autocomplete === true) {
        errors.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_CHOICES', 'Autocomplete cannot be set with choices');
      }
    }
  });
}

/** Validates a command definition as Discord does for POST/PUT, returning the 50035 error tree. */
export function validateCommand(body: unknown, path: (string | number)[] = []): FormErrors {
  const errors = new FormErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return errors;
  }
  const c = body as Json;
  const type = c.type ?? 1;
  if (type !== 1 && type !== 2 && type !== 3 && type !== 4) {
    errors.add([...path, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4}.');
  }
  // Context-menu (USER, MESSAGE) command names may hold spaces and capitals: only their length is limited.
  const contextMenu = type === 2 || type === 3;
  const validName =
    typeof c.name === 'string' &&
    (contextMenu ? c.name.trim().length > 0 && c.name.length <= 32 : NAME.test(c.name) && (type !== 1 || c.name === c.name.toLowerCase()));
  if (!validName) errors.add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  if (type === 1) {
    if (typeof c.description !== 'string' || c.description.length < 1 || c.description.length > 100) {
      errors.add([...path, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    validateLocalizations(errors, [...path, 'name_localizations'], c.name_localizations, 'name');
    validateLocalizations(errors, [...path, 'description_localizations'], c.description_localizations, 'description');
  }
  validateOptions(errors, [...path, 'options'], c.options, 0);
  validateEnumList(errors, [...path, 'integration_types'], c.integration_types, [0, 1]);
  validateEnumList(errors, [...path, 'contexts'], c.contexts, [0, 1, 2]);
  return errors;
}

/** integration_types (0 guild install, 1 user install) and contexts (0 guild, 1 bot DM, 2 private channel): null or a list of known values. */
function validateEnumList(errors: FormErrors, path: (string | number)[], value: unknown, allowed: number[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    errors.add(path, 'BASE_TYPE_LIST', 'Must be a list.');
    return;
  }
  if (value.length === 0) errors.add(path, 'BASE_TYPE_MIN_LENGTH', 'Must be 1 or more in length.');
  value.forEach((item: unknown, i: number) => {
    if (typeof item !== 'number' || !allowed.includes(item)) {
      errors.add([...path, i], 'BASE_TYPE_CHOICES', `Value must be one of {${allowed.join(', ')}}.`);
    }
  });
}

/** Installation contexts a registered command is offered in: its integration_types, or the app's default (guild install). */
export function integrationTypesOf(command: RegisteredCommand): number[] {
  return Array.isArray(command.integration_types) ? (command.integration_types as number[]) : [0];
}

/** Interaction contexts a registered command may be used in: its contexts, or all (dm_permission false: guilds only). */
export function contextsOf(command: RegisteredCommand): number[] {
  if (Array.isArray(command.contexts)) return command.contexts as number[];
  return command.dm_permission === false ? [0] : [0, 1, 2];
}

/** One scope's commands (global or one guild), ids stable across re-registration by name and type. */
export class CommandScope {
  private readonly byId = new Map<string, RegisteredCommand>();

  constructor(
    private readonly applicationId: string,
    private readonly guildId: string | undefined,
  ) {}

  list(): RegisteredCommand[] {
    return [...this.byId.values()];
  }

  get(id: string): RegisteredCommand | undefined {
    return this.byId.get(id);
  }

  findByName(name: string, type = 1): RegisteredCommand | undefined {
    return this.list().find((c) => c.name === name && c.type === type);
  }

  /** Create or replace by name (POST semantics); returns whether it was new. */
  upsert(body: Json): { command: RegisteredCommand; created: boolean } {
    const type = typeof body.type === 'number' ? body.type : 1;
    const existing = this.findByName(String(body.name), type);
    const command = this.build(body, existing?.id);
    this.byId.set(command.id, command);
    return { command, created: !existing };
  }

  /** Bulk overwrite (PUT): the new set replaces the old; names kept keep their ids. */
  overwrite(bodies: Json[]): RegisteredCommand[] {
    const next = bodies.map((body) => {
      const type = typeof body.type === 'number' ? body.type : 1;
      return this.build(body, this.findByName(String(body.name), type)?.id);
    });
    this.byId.clear();
    for (const c of next) this.byId.set(c.id, c);
    return next;
  }

  patch(id: string, body: Json): RegisteredCommand | undefined {
    const existing = this.byId.get(id);
    if (!existing) return undefined;
    const command = this.build({ ...existing, ...body }, id);
    this.byId.set(id, command);
    return command;
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  private build(body: Json, id: string | undefined): RegisteredCommand {
    const type = typeof body.type === 'number' ? body.type : 1;
    return {
      ...structuredClone(body),
      id: id ?? snowflake(),
      application_id: this.applicationId,
      ...(this.guildId ? { guild_id: this.guildId } : {}),
      name: String(body.name),
      description: typeof body.description === 'string' ? body.description : '',
      type,
      default_member_permissions: body.default_member_permissions ?? null,
      nsfw: body.nsfw === true,
      version: snowflake(),
    } as RegisteredCommand;
  }
}

/** Values a test passes for options: strings, numbers, booleans, or ids for users, channels and roles. */
export type OptionValues = Record<string, string | number | boolean>;

export interface ResolveContext {
  channel(id: string): Json | undefined;
  channelType(id: string): number | undefined;
  role(id: string): Json | undefined;
  user(id: string): { user: Json; member?: Json } | undefined;
}

export interface BuiltOptions {
  options: Json[];
  resolved: Json | undefined;
}

/**
 * Builds the interaction `data.options` (and `resolved`) for a registered command, throwing a clear Error for
 * anything the real Discord client would refuse to send: unknown or missing options, wrong types, out-of-range values.
 * With `focused`, builds an autocomplete payload: that option carries the partial text and `focused: true`.
 */
export function buildOptions(
  command: RegisteredCommand,
  values: OptionValues,
  context: ResolveContext,
  route: { subcommand?: string; subcommandGroup?: string; focused?: string },
): BuiltOptions {
  const resolved: Record<string, Record<string, Json>> = {};
  const label = `/${command.name}`;
  let defs = (command.options ?? []) as Json[];
  const wrap: ((inner: Json[]) => Json[])[] = [];
  if (route.subcommandGroup !== undefined) {
    const group = defs.find((d) => d.type === OptionType.SubcommandGroup && d.name === route.subcommandGroup);
    if (!group) throw new Error(`${label} has no subcommand group "${route.subcommandGroup}"`);
    defs = (group.options ?? []) as Json[];
    wrap.push((inner) => [{ type: OptionType.SubcommandGroup, name: group.name, options: inner }]);
  }
  if (route.subcommand !== undefined) {
    const sub = defs.find((d) => d.type === OptionType.Subcommand && d.name === route.subcommand);
    if (!sub) throw new Error(`${label} has no subcommand "${route.subcommand}"`);
    defs = (sub.options ?? []) as Json[];
    wrap.push((inner) => [{ type: OptionType.Subcommand, name: sub.name, options: inner }]);
  } else if (defs.some((d) => d.type === OptionType.Subcommand || d.type === OptionType.SubcommandGroup)) {
    throw new Error(`${label} needs a subcommand`);
  }

  const built: Json[] = [];
  for (const [name, value] of Object.entries(values)) {
    const def = defs.find((d) => d.name === name);
    if (!def) throw new Error(`${label} has no option "${name}"`);
    const type = def.type as number;
    if (route.focused === name) {
      if (def.autocomplete !== true) throw new Error(`${label} option "${name}" does not have autocomplete enabled`);
      built.push({ type, name, value: String(value), focused: true });
      continue;
    }
    built.push({ type, name, value: convert(label, def, value, context, resolved) });
  }
  if (route.focused !== undefined && !(route.focused in values)) {
    throw new Error(`${label}: the focused option "${route.focused}" needs a value (the text typed so far)`);
  }
  if (route.focused === undefined) {
    for (const def of defs) {
      if (def.required === true && !(String(def.name) in values)) throw new Error(`${label} requires option "${String(def.name)}"`);
    }
  }
  let options = built;
  for (const w of wrap.reverse()) options = w(options);
  return { options, resolved: Object.keys(resolved).length > 0 ? resolved : undefined };
}

function convert(
  label: string,
  def: Json,
  value: string | number | boolean,
  context: ResolveContext,
  resolved: Record<string, Record<string, Json>>,
): string | number | boolean {
  const name = String(def.name);
  const fail = (why: string): never => {
    throw new Error(`${label} option "${name}": ${why}`);
  };
  const add = (kind: string, id: string, payload: Json): void => {
    (resolved[kind] ??= {})[id] = payload;
  };
  const checkChoices = (v: string | number): void => {
    const choices = def.choices as { value: unknown }[] | undefined;
    if (choices && !choices.some((c) => c.value === v)) fail(`${JSON.stringify(v)} is not one of the choices`);
  };
  switch (def.type) {
    case OptionType.String: {
      if (typeof value !== 'string') return fail('expects a string');
      if (typeof def.min_length === 'number' && value.length < def.min_length) fail(`shorter than ${def.min_length}`);
      if (typeof def.max_length === 'number' && value.length > def.max_length) fail(`longer than ${def.max_length}`);
      if (value.length > 6000) fail('longer than 6000');
      checkChoices(value);
      return value;
    }
    case OptionType.Integer:
    case OptionType.Number: {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('expects a number');
      if (def.type === OptionType.Integer && !Number.isInteger(value)) fail('expects an integer');
      if (typeof def.min_value === 'number' && value < def.min_value) fail(`below ${def.min_value}`);
      if (typeof def.max_value === 'number' && value > def.max_value) fail(`above ${def.max_value}`);
      checkChoices(value);
      return value;
    }
    case OptionType.Boolean:
      if (typeof value !== 'boolean') return fail('expects a boolean');
      return value;
    case OptionType.Channel: {
      const id = String(value);
      const channel = context.channel(id);
      if (!channel) return fail(`unknown channel ${id}`);
      const types = def.channel_types as number[] | undefined;
      const channelType = context.channelType(id);
      if (types && channelType !== undefined && !types.includes(channelType)) fail(`channel type ${channelType} is not allowed`);
      add('channels', id, channel);
      return id;
    }
    case OptionType.Role: {
      const id = String(value);
      const role = context.role(id);
      if (!role) return fail(`unknown role ${id}`);
      add('roles', id, role);
      return id;
    }
    case OptionType.User:
    case OptionType.Mentionable: {
      const id = String(value);
      const user = context.user(id);
      if (user) {
        add('users', id, user.user);
        if (user.member) add('members', id, user.member);
        return id;
      }
      const role = def.type === OptionType.Mentionable ? context.role(id) : undefined;
      if (!role) return fail(`unknown ${def.type === OptionType.User ? 'user' : 'user or role'} ${id}`);
      add('roles', id, role);
      return id;
    }
    default:
      return fail(`option type ${String(def.type)} is not supported by the harness`);
  }
}
