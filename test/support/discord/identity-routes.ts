/** The bot's own identity and where its gateway is: GET /gateway(/bot), /users/@me, /users/:id, /applications/@me. */
import { unknown } from './api-error.ts';
import { makeUser, serializeCurrentUser, serializeUser } from './model.ts';
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
  table.on('GET', '/users/@me', () => ok(serializeCurrentUser(world.botUser)));
  table.on('GET', '/users/:user_id', ({ params }) => {
    const user = world.users.get(params.user_id ?? '');
    if (!user) throw unknown(10013, 'User');
    return ok(serializeUser(user));
  });
  // The application's owner: a user of its own (applications without a team are owned by one account).
  const owner = makeUser({ id: snowflakeAt(0x17a9b1f2c00), username: 'owner' });
  const application = () =>
    ok({
      id: world.applicationId,
      name: world.botUser.username,
      icon: null,
      description: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      bot: serializeUser(world.botUser),
      flags: 0,
      flags_new: '0',
      owner: serializeUser(owner),
      verify_key: '0'.repeat(64),
      team: null,
      redirect_uris: [],
      interactions_endpoint_url: null,
      role_connections_verification_url: null,
      explicit_content_filter: 0,
      eligible_oauth2_scopes: ['applications.commands', 'bot'],
      install_params: { scopes: ['applications.commands', 'bot'], permissions: '0' },
      integration_types_config: { '0': {}, '1': {} },
      approximate_guild_count: world.guilds.size,
      approximate_user_install_count: world.userInstalls.size,
      approximate_user_authorization_count: world.userInstalls.size,
    });
  table.on('GET', '/applications/@me', application);
  table.on('GET', '/oauth2/applications/@me', application);
}
