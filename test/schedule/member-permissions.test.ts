import { describe, expect, it } from 'vitest';
import {
  ALL_PERMISSION_BITS,
  basePermissions,
  canManageChannel,
  PermissionBits,
  permissionsInChannel,
  type ChannelOverwrite,
  type MemberInChannel,
} from '../../src/schedule/member-permissions.ts';

const { Administrator, ManageChannels, ViewChannel, ReadMessageHistory } = PermissionBits;
const SEND = 1n << 11n;
const GUILD = '100';
const OWNER = '900';
const USER = '500';
const MODS = '201';
const HELPERS = '202';
const EVERYONE_DEFAULT = ViewChannel | SEND | ReadMessageHistory;

function member(overrides: Partial<MemberInChannel> = {}): MemberInChannel {
  return {
    guildId: GUILD,
    ownerId: OWNER,
    userId: USER,
    roleIds: [],
    rolePermissions: new Map([
      [GUILD, EVERYONE_DEFAULT],
      [MODS, ManageChannels],
      [HELPERS, 0n],
    ]),
    overwrites: [],
    ...overrides,
  };
}

const everyone = (allow: bigint, deny: bigint): ChannelOverwrite => ({ id: GUILD, kind: 'role', allow, deny });
const role = (id: string, allow: bigint, deny: bigint): ChannelOverwrite => ({ id, kind: 'role', allow, deny });
const own = (allow: bigint, deny: bigint): ChannelOverwrite => ({ id: USER, kind: 'member', allow, deny });

describe("a member's permissions in a channel, as Discord resolves them", () => {
  const cases: Array<{ name: string; member: MemberInChannel; manages: boolean }> = [
    { name: 'no role: @everyone only', member: member(), manages: false },
    { name: 'a role granting it server-wide', member: member({ roleIds: [MODS] }), manages: true },
    { name: 'the owner, with no role and every overwrite against them', member: member({ userId: OWNER, overwrites: [everyone(0n, ALL_PERMISSION_BITS), { id: OWNER, kind: 'member', allow: 0n, deny: ALL_PERMISSION_BITS }] }), manages: true },
    {
      name: 'Administrator from a role outweighs every deny',
      member: member({ roleIds: [HELPERS], rolePermissions: new Map([[GUILD, 0n], [HELPERS, Administrator]]), overwrites: [everyone(0n, ALL_PERMISSION_BITS), own(0n, ManageChannels)] }),
      manages: true,
    },
    {
      name: 'Administrator granted by an overwrite grants nothing more',
      member: member({ overwrites: [own(Administrator, 0n)] }),
      manages: false,
    },
    { name: '@everyone allowed it in the channel', member: member({ overwrites: [everyone(ManageChannels, 0n)] }), manages: true },
    { name: '@everyone denied it, a role of theirs allows it', member: member({ roleIds: [HELPERS], overwrites: [everyone(0n, ManageChannels), role(HELPERS, ManageChannels, 0n)] }), manages: true },
    { name: 'a role of theirs denies what their role grants server-wide', member: member({ roleIds: [MODS], overwrites: [role(MODS, 0n, ManageChannels)] }), manages: false },
    {
      name: 'one role denies, another allows: the allow wins (denies go first)',
      member: member({ roleIds: [MODS, HELPERS], overwrites: [role(MODS, 0n, ManageChannels), role(HELPERS, ManageChannels, 0n)] }),
      manages: true,
    },
    { name: "a role they do not have changes nothing", member: member({ roleIds: [MODS], overwrites: [role(HELPERS, 0n, ManageChannels)] }), manages: true },
    { name: 'their own overwrite denies what a role overwrite allows', member: member({ roleIds: [HELPERS], overwrites: [role(HELPERS, ManageChannels, 0n), own(0n, ManageChannels)] }), manages: false },
    { name: 'their own overwrite allows what @everyone and a role deny', member: member({ roleIds: [MODS], overwrites: [everyone(0n, ManageChannels), role(MODS, 0n, ManageChannels), own(ManageChannels, 0n)] }), manages: true },
    { name: "another member's overwrite changes nothing", member: member({ roleIds: [MODS], overwrites: [{ id: '501', kind: 'member', allow: 0n, deny: ManageChannels }] }), manages: true },
    { name: 'a member overwrite with a role\'s id is not a role overwrite', member: member({ roleIds: [MODS], overwrites: [{ id: MODS, kind: 'member', allow: 0n, deny: ManageChannels }] }), manages: true },
    { name: 'a channel hidden from them: nothing else counts', member: member({ roleIds: [MODS], overwrites: [everyone(0n, ViewChannel)] }), manages: false },
    { name: 'hidden from @everyone, shown to their role', member: member({ roleIds: [MODS], overwrites: [everyone(0n, ViewChannel), role(MODS, ViewChannel, 0n)] }), manages: true },
    { name: 'in time-out', member: member({ roleIds: [MODS], timedOut: true }), manages: false },
    { name: 'a role unknown to the server grants nothing', member: member({ roleIds: ['299'] }), manages: false },
  ];

  for (const { name, member: input, manages } of cases) {
    it(`${name}: ${manages ? 'may' : 'may not'} manage the channel`, () => {
      expect(canManageChannel(input)).toBe(manages);
    });
  }

  it('keeps every other bit as the overwrites leave it', () => {
    const input = member({ roleIds: [MODS], overwrites: [everyone(0n, SEND), role(MODS, SEND, 0n), own(0n, ReadMessageHistory)] });
    expect(basePermissions(input)).toBe(EVERYONE_DEFAULT | ManageChannels);
    expect(permissionsInChannel(input)).toBe(ViewChannel | SEND | ManageChannels);
    expect(permissionsInChannel(member({ roleIds: [MODS], timedOut: true }))).toBe(ViewChannel | ReadMessageHistory);
    expect(permissionsInChannel(member({ userId: OWNER, timedOut: true }))).toBe(ALL_PERMISSION_BITS);
  });
});
