/**
 * A member's permissions in one channel of a server, worked out from plain data the way Discord resolves them, so
 * that an admin command checks the channel it changes rather than the one it was typed in. Knows nothing of any
 * transport: the Discord one reads the roles, the owner and the channel's overwrites and passes them in.
 *
 * Discord's order: the server's owner holds everything; otherwise the base is @everyone's permissions OR those of
 * each of the member's roles, and Administrator in the base grants everything. On that base the channel's
 * overwrites apply in three steps, each taking away its deny before adding its allow: the @everyone overwrite, then
 * the member's role overwrites together (every deny of them, then every allow), then the member's own overwrite.
 * A thread has no overwrites of its own: the caller passes its parent channel's.
 */

/** Discord's permission bits this module needs by name. */
export const PermissionBits = {
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ViewChannel: 1n << 10n,
  ReadMessageHistory: 1n << 16n,
} as const;

/** Every bit Discord defines today and any it may add: what the owner and an administrator hold. */
export const ALL_PERMISSION_BITS = (1n << 64n) - 1n;

export interface ChannelOverwrite {
  /** A role's id (the server's own id for @everyone) or a member's user id. */
  id: string;
  kind: 'role' | 'member';
  allow: bigint;
  deny: bigint;
}

export interface MemberInChannel {
  guildId: string;
  /** The server owner's user id. */
  ownerId: string;
  userId: string;
  /** The member's roles, without @everyone (which every member has). */
  roleIds: readonly string[];
  /** Each role's server-wide permissions, @everyone's under the server's id. A role missing here grants nothing. */
  rolePermissions: ReadonlyMap<string, bigint>;
  /** The channel's permission overwrites (a thread's parent's). */
  overwrites: readonly ChannelOverwrite[];
  /** A member in time-out keeps only View Channel and Read Message History (owner and administrators are exempt). */
  timedOut?: boolean;
}

/** The member's server-wide permissions: roles only, before any channel's overwrites. */
export function basePermissions(member: MemberInChannel): bigint {
  if (member.userId === member.ownerId) return ALL_PERMISSION_BITS;
  let bits = member.rolePermissions.get(member.guildId) ?? 0n;
  for (const roleId of member.roleIds) bits |= member.rolePermissions.get(roleId) ?? 0n;
  return (bits & PermissionBits.Administrator) !== 0n ? ALL_PERMISSION_BITS : bits;
}

/**
 * The member's permissions in the channel. A member who cannot see a channel holds nothing in it (Discord's
 * implicit rule), so Manage Channels there needs View Channel too.
 */
export function permissionsInChannel(member: MemberInChannel): bigint {
  const base = basePermissions(member);
  if (base === ALL_PERMISSION_BITS) return ALL_PERMISSION_BITS;
  let bits = base;
  const everyone = member.overwrites.find((overwrite) => overwrite.kind === 'role' && overwrite.id === member.guildId);
  if (everyone) bits = (bits & ~everyone.deny) | everyone.allow;
  const roles = new Set(member.roleIds);
  let allow = 0n;
  let deny = 0n;
  for (const overwrite of member.overwrites) {
    if (overwrite.kind !== 'role' || overwrite.id === member.guildId || !roles.has(overwrite.id)) continue;
    allow |= overwrite.allow;
    deny |= overwrite.deny;
  }
  bits = (bits & ~deny) | allow;
  const own = member.overwrites.find((overwrite) => overwrite.kind === 'member' && overwrite.id === member.userId);
  if (own) bits = (bits & ~own.deny) | own.allow;
  if ((bits & PermissionBits.ViewChannel) === 0n) return 0n;
  if (member.timedOut) bits &= PermissionBits.ViewChannel | PermissionBits.ReadMessageHistory;
  return bits;
}

export function canManageChannel(member: MemberInChannel): boolean {
  return (permissionsInChannel(member) & PermissionBits.ManageChannels) !== 0n;
}
