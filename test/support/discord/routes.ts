/** Every REST route the local server serves, by resource module, in one table (spec.test.ts checks each against the spec). */
import { defineChannelRoutes } from './channel-routes.ts';
import { defineChannelWebhookRoutes } from './channel-webhook-routes.ts';
import { defineCommandRoutes } from './command-routes.ts';
import { defineForumRoutes } from './forum-routes.ts';
import { defineIdentityRoutes } from './identity-routes.ts';
import { defineMessageRoutes } from './message-routes.ts';
import type { RouteTable } from './route-table.ts';
import { defineWebhookRoutes } from './webhook-routes.ts';
import type { World } from './world.ts';

export function defineRoutes(table: RouteTable, world: World): void {
  // Registration order is kept among routes of equal specificity.
  defineIdentityRoutes(table, world);
  defineCommandRoutes(table, world);
  defineChannelRoutes(table, world);
  defineMessageRoutes(table, world);
  defineForumRoutes(table, world);
  defineWebhookRoutes(table, world);
  defineChannelWebhookRoutes(table, world);
}
