/** Application commands, global and per guild: list, overwrite in bulk, create or update, get, edit, delete. */
import { ApiError, invalidForm, mergeErrors, unknown } from './api-error.ts';
import { CommandScope, validateCommand, type RegisteredCommand } from './commands.ts';
import { noContent, ok, type RouteTable } from './route-table.ts';
import { FormErrors } from './validation.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

/**
 * Commands an app may have per scope, by type: 100 CHAT_INPUT, 15 USER, 15 MESSAGE, 1 PRIMARY_ENTRY_POINT (Discord's
 * application-commands documentation). Beyond them Discord answers 400 30032 "Maximum number of application commands
 * reached (N)"; a bulk overwrite longer than all three kinds together is refused as a form error first (observed:
 * 130 commands answered 30032 (100), 134 "Must be 130 or fewer in length.").
 */
const COMMAND_LIMITS = new Map<number, number>([
  [1, 100],
  [2, 15],
  [3, 15],
  [4, 1],
]);
const MAX_COMMANDS_LISTED = 100 + 15 + 15;

const tooManyCommands = (limit: number): ApiError => new ApiError(400, 30032, `Maximum number of application commands reached (${limit})`);

export function defineCommandRoutes(table: RouteTable, world: World): void {
  const scope = (params: Record<string, string>): CommandScope => {
    if (params.application_id !== world.applicationId) throw new ApiError(403, 50001, 'Missing Access');
    const guildId = params.guild_id;
    if (!guildId) return world.globalCommands;
    if (!world.guilds.has(guildId)) throw new ApiError(403, 50001, 'Missing Access');
    let s = world.guildCommands.get(guildId);
    if (!s) {
      s = new CommandScope(world.applicationId, guildId);
      world.guildCommands.set(guildId, s);
    }
    return s;
  };
  for (const base of ['/applications/:application_id/commands', '/applications/:application_id/guilds/:guild_id/commands']) {
    table.on('GET', base, ({ params }) => ok(scope(params).list()));
    table.on('PUT', base, ({ params, rawBody }) => {
      const s = scope(params);
      if (!Array.isArray(rawBody)) {
        const errors = new FormErrors();
        errors.add([], 'BASE_TYPE_LIST', 'Must be a list.');
        throw invalidForm(errors);
      }
      const errors = new FormErrors();
      if (rawBody.length > MAX_COMMANDS_LISTED) errors.add([], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_COMMANDS_LISTED} or fewer in length.`);
      const seen = new Set<string>();
      rawBody.forEach((c: unknown, i: number) => {
        const one = validateCommand(c, [i]);
        mergeErrors(errors, one);
        const key = `${String((c as Json).type ?? 1)}:${String((c as Json).name)}`;
        if (seen.has(key)) errors.add([i, 'name'], 'APPLICATION_COMMAND_ALREADY_EXISTS', 'Application command names must be unique');
        seen.add(key);
      });
      if (!errors.empty) throw invalidForm(errors);
      for (const [type, limit] of COMMAND_LIMITS) {
        if (rawBody.filter((c) => ((c as Json).type ?? 1) === type).length > limit) throw tooManyCommands(limit);
      }
      return ok(s.overwrite(rawBody as Json[]));
    });
    table.on('POST', base, ({ params, body }) => {
      const s = scope(params);
      const errors = validateCommand(body);
      if (!errors.empty) throw invalidForm(errors);
      const type = typeof body.type === 'number' ? body.type : 1;
      const limit = COMMAND_LIMITS.get(type) ?? 0;
      if (!s.findByName(String(body.name), type) && s.list().filter((c) => c.type === type).length >= limit) throw tooManyCommands(limit);
      const { command, created } = s.upsert(body);
      return ok(command, created ? 201 : 200);
    });
    table.on('GET', `${base}/:command_id`, ({ params }) => ok(scope(params).get(params.command_id ?? '') ?? throwUnknownCommand()));
    table.on('PATCH', `${base}/:command_id`, ({ params, body }) => {
      const s = scope(params);
      const current = s.get(params.command_id ?? '') ?? throwUnknownCommand();
      const errors = validateCommand({ ...current, ...body });
      if (!errors.empty) throw invalidForm(errors);
      return ok(s.patch(current.id, body));
    });
    table.on('DELETE', `${base}/:command_id`, ({ params }) => {
      if (!scope(params).delete(params.command_id ?? '')) throwUnknownCommand();
      return noContent;
    });
  }}

/** Registered commands: global, or one guild's. */
export function registeredCommands(world: World, guildId?: string): RegisteredCommand[] {
  return guildId ? (world.guildCommands.get(guildId)?.list() ?? []) : world.globalCommands.list();
}

function throwUnknownCommand(): never {
  throw unknown(10063, 'application command');
}
