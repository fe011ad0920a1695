/** The bot's own identity and where its gateway is: GET /gateway(/bot), /users/@me, /users/:id, /applications/@me. */
import { unknown } from './api-error.ts';
import { serializeUser } from './model.ts';
import { ok, type RouteTable } from './route-table.ts';
import { snowflakeAt } from './snowflake.ts';
import type { World } from './world.ts';

export function defineIdentityRoutes(table: RouteTable, world: World): void {
  table.on('GET', '/gateway', () => ok({ url: world.gateway.url }), { auth: false });
  table.on('GET', '/gateway/bot', () => {
    const { used, resetAfter } = world.gateway.sessionStarts();
    return ok({
      url: world.gateway.url,
      shards: world.shardCount,
      session_start_limit: {
        total: world.options.sessionStartLimit,
        remaining: Math.max(0, world.options.sessionStartLimit - used),
        reset_after: resetAfter,
        max_concurrency: world.options.maxConcurrency,
      },
    });
  });
  table.on('GET', '/users/@me', () => ok({ ...serializeUser(world.botUser), verified: true, mfa_enabled: false, flags: 0 }));
  table.on('GET', '/users/:user_id', ({ params }) => {
    const user = world.users.get(params.user_id ?? '');
    if (!user) throw unknown(10013, 'User');
    return ok(serializeUser(user));
  });
  const application = () =>
    ok({
      id: world.applicationId,
      name: world.botUser.username,
      icon: null,
      description: '',
      bot_public: true,
      bot_require_code_grant: false,
      bot: serializeUser(world.botUser),
      flags: 0,
      owner: { id: snowflakeAt(0x17a9b1f2c00), username: 'owner', discriminator: '0', avatar: null },
      verify_key: '0'.repeat(64),
      team: null,
      approximate_guild_count: world.guilds.size,
    });
  table.on('GET', '/applications/@me', application);
  table.on('GET', '/oauth2/applications/@me', application);
}
