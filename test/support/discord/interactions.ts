/**
 * Interactions as Discord's client starts them: a chat-input command (options checked against its registration,
 * offered only where its contexts and installations allow), an autocomplete, or a button press on a message the bot
 * sent. Each returns an InteractionHandle to watch the bot's answer through.
 */
import { PermissionFlagsBits } from 'discord.js';
import { buildOptions, contextsOf, integrationTypesOf, type RegisteredCommand } from './commands.ts';
import { dispatchInteraction } from './interaction-dispatch.ts';
import { ownersIn, placeFor, placeUser, resolveContext, type Place } from './interaction-places.ts';
import { handleFor } from './interaction-state.ts';
import type { StoredMessage } from './messages.ts';
import { ALL_PERMISSIONS, basePermissions, toBits } from './model.ts';
import type { AutocompleteSpec, InteractionHandle, InvokeCommandSpec, PressButtonSpec, SubmitModalSpec } from './public-types.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;


/** Dispatches a chat-input command as the real client would, after checking options against the registration. */
export function invokeCommand(world: World, spec: InvokeCommandSpec): InteractionHandle {
  const { command, place, owners } = commandFor(world, spec);
  const built = buildOptions(command, spec.options ?? {}, resolveContext(world, place), {
    subcommand: spec.subcommand,
    subcommandGroup: spec.subcommandGroup,
  });
  return dispatchInteraction(world, 2, place, spec, {
    id: command.id,
    name: command.name,
    type: 1,
    ...(built.options.length > 0 ? { options: built.options } : {}),
    ...(built.resolved ? { resolved: built.resolved } : {}),
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
  }, owners);
}

/** Sends an autocomplete interaction (type 4) and waits for the bot's choices. */
export async function autocomplete(world: World, spec: AutocompleteSpec): Promise<{ name: string; value: string | number }[]> {
  const handle = startAutocomplete(world, spec);
  const callback = await handle.waitForCallback(spec.timeoutMs);
  if (callback.status >= 400) throw new Error(`autocomplete callback was rejected with ${callback.status} (${String(callback.errorCode)})`);
  return handle.choices ?? [];
}

export function startAutocomplete(world: World, spec: AutocompleteSpec): InteractionHandle {
  const { command, place, owners } = commandFor(world, spec);
  const built = buildOptions(command, spec.options ?? {}, resolveContext(world, place), {
    subcommand: spec.subcommand,
    subcommandGroup: spec.subcommandGroup,
    focused: spec.focused,
  });
  return dispatchInteraction(world, 4, place, spec, {
    id: command.id,
    name: command.name,
    type: 1,
    options: built.options,
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
  }, owners);
}

/** Clicks a button on a message the bot sent; throws when no such (enabled) button exists. */
export function pressButton(world: World, spec: PressButtonSpec): InteractionHandle {
  const place = placeFor(world, spec);
  const channelId = place.kind === 'guild' ? place.channel.id : place.channelId;
  const carries = (m: StoredMessage): boolean => findButton(m.components, spec.customId) !== undefined;
  let message: StoredMessage | undefined;
  if (spec.messageId) {
    message = world.messages.get(spec.messageId);
    if (!message || message.deletedAt !== null) throw new Error(`message ${spec.messageId} does not exist`);
    if (!carries(message)) throw new Error(`message ${spec.messageId} has no button with custom_id ${spec.customId}`);
  } else {
    message = [...(world.messagesByChannel.get(channelId) ?? [])].reverse().find((m) => m.deletedAt === null && carries(m));
    if (!message) throw new Error(`no message in channel ${channelId} has a button with custom_id ${spec.customId}`);
  }
  if (message.channelId !== channelId) throw new Error(`message ${message.id} is not in channel ${channelId}`);
  const button = findButton(message.components, spec.customId);
  if (button?.disabled === true) throw new Error(`button ${spec.customId} is disabled`);
  const owners = componentOwners(world, place, message);
  if (Object.keys(owners).length === 0) throw new Error(`the app is not installed where channel ${channelId} is, for user ${placeUser(place).id}`);
  return dispatchInteraction(world, 3, place, spec, { custom_id: spec.customId, component_type: 2 }, owners, message);
}

/**
 * Submits the form the bot answered interaction `interactionId` with (a modal submit, type 5), as Discord's client
 * does: each text input's value (empty when not given), under its label, within the input's min/max_length and
 * filled when required (unless `forged`). A form is submitted once; by its opener unless `user` says otherwise.
 */
export function submitModal(world: World, spec: SubmitModalSpec): InteractionHandle {
  const opened = world.interactions.get(spec.interactionId);
  if (!opened?.modal) throw new Error(`interaction ${spec.interactionId} was not answered with a form`);
  if (opened.modalSubmitted) throw new Error(`the form of interaction ${spec.interactionId} was already submitted`);
  const modal = opened.modal;
  const known = new Set<string>();
  let nextId = 1;
  const components = ((modal.components ?? []) as Json[]).map((row) => {
    const input = (row.type === 18 ? row.component : ((row.components as Json[] | undefined) ?? [])[0]) as Json;
    const customId = String(input.custom_id);
    known.add(customId);
    const value = spec.values[customId] ?? '';
    const max = typeof input.max_length === 'number' ? input.max_length : 4000;
    const min = typeof input.min_length === 'number' ? input.min_length : 0;
    if (!spec.forged && (value.length > max || value.length < min)) throw new Error(`Discord's client keeps ${customId} within ${min}..${max} characters (got ${value.length})`);
    if (!spec.forged && input.required !== false && value === '') throw new Error(`Discord's client does not submit a form with ${customId} (required) empty`);
    const submitted = { type: 4, id: nextId + 1, custom_id: customId, value };
    const wrapped = row.type === 18 ? { type: 18, id: nextId, component: submitted } : { type: 1, id: nextId, components: [submitted] };
    nextId += 2;
    return wrapped;
  });
  for (const id of Object.keys(spec.values)) if (!known.has(id)) throw new Error(`the form has no text input ${id}`);
  opened.modalSubmitted = true;
  const place = placeFor(world, { ...spec, user: spec.user ?? opened.user.id, channelId: spec.channelId ?? opened.channelId });
  const owners = opened.payload.authorizing_integration_owners as Record<string, string>;
  return dispatchInteraction(world, 5, place, spec, { custom_id: modal.custom_id, components }, { ...owners }, opened.original);
}

/** Every interaction dispatched so far. */
export function interactionHandles(world: World): InteractionHandle[] {
  return [...world.interactions.values()].map((s) => handleFor(world.changes, s));
}

export function commandFor(world: World, spec: InvokeCommandSpec): { command: RegisteredCommand; place: Place; owners: Record<string, string> } {
  const place = placeFor(world, spec);
  const scoped = place.kind === 'guild' && place.installed ? world.guildCommands.get(place.guild.id)?.findByName(spec.name) : undefined;
  const command = scoped ?? world.globalCommands.findByName(spec.name);
  if (!command) {
    const where = place.kind === 'guild' && place.installed ? ` (globally or in guild ${place.guild.id})` : ' globally';
    throw new Error(`/${spec.name} is not registered${where}; deploy the commands first`);
  }
  const context = place.kind === 'guild' ? 0 : place.kind === 'dm' ? 1 : 2;
  const contexts = scoped ? [0] : contextsOf(command);
  if (!contexts.includes(context)) {
    const where = context === 0 ? 'in guilds' : context === 1 ? 'in DMs' : 'in group DMs or DMs between users';
    throw new Error(`/${command.name} cannot be used ${where} (contexts ${JSON.stringify(command.contexts ?? null)}); Discord would not offer it`);
  }
  const owners = ownersIn(world, scoped ? [0] : integrationTypesOf(command), place);
  if (Object.keys(owners).length === 0) {
    throw new Error(
      `/${command.name} is not installed here (integration_types ${JSON.stringify(command.integration_types ?? null)}; ` +
        `user install: ${world.userInstalls.has(placeUser(place).id)}); Discord would not offer it`,
    );
  }
  if (place.kind === 'guild') {
    const { guild, member } = place;
    const required = command.default_member_permissions;
    if (typeof required === 'string') {
      const bits = BigInt(required);
      let held = spec.memberPermissions !== undefined ? toBits(spec.memberPermissions, 0n) : basePermissions(guild, member);
      if ((held & PermissionFlagsBits.Administrator) !== 0n) held = ALL_PERMISSIONS;
      // Discord's client hides a command from members without its default permissions (admins always see it).
      if ((held & bits) !== bits) {
        throw new Error(`member ${member.user.id} lacks /${command.name}'s default_member_permissions (${required}); Discord would not offer it`);
      }
    }
  }
  return { command, place, owners };
}

/**
 * Owners for a button press: those of the interaction whose response carries the button (so anyone may press a
 * button of a user-installed reply); for other messages of the bot, the installations present where it is pressed.
 */
export function componentOwners(world: World, place: Place, message: StoredMessage): Record<string, string> {
  const source = message.interactionId ? world.interactions.get(message.interactionId) : undefined;
  const owners = source?.payload.authorizing_integration_owners;
  if (owners && typeof owners === 'object') return { ...(owners as Record<string, string>) };
  return ownersIn(world, [0, 1], place);
}

function findButton(components: Json[], customId: string): Json | undefined {
  for (const row of components) {
    const children = Array.isArray(row.components) ? (row.components as Json[]) : [];
    for (const c of [row, ...children]) if (c.custom_id === customId) return c;
  }
  return undefined;
}
