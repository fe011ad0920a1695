import { afterEach, expect, it } from 'vitest';
import { PostgresDeliveryClaims } from '../../src/schedule/postgres-delivery-claims.ts';
import { StoreError } from '../../src/store/store-watch.ts';
import { describePostgres, postgresAdmin, usePostgresSchema } from '../support/postgres.ts';

/** Claims on (channel, day) in the PostgreSQL store (cluster mode on PostgreSQL): one holder at a time, by the engine's own locking. */

const opened: PostgresDeliveryClaims[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((claims) => claims.close()));
});

describePostgres('delivery claims in PostgreSQL', () => {
  const pg = usePostgresSchema();

  /** Claims of one "process": a pool of its own (the URL differs in its application name only). */
  async function process(name: string, leaseMs = 30_000): Promise<PostgresDeliveryClaims> {
    const url = new URL(pg.url);
    url.searchParams.set('application_name', `claims-${name}`);
    const claims = await PostgresDeliveryClaims.open(url.href, leaseMs);
    opened.push(claims);
    return claims;
  }

  it('of twelve processes asking for the same post at once, exactly one gets it; released, it can be claimed again', async () => {
    const processes = await Promise.all(Array.from({ length: 12 }, (_, i) => process(`p${i}`)));
    for (let round = 0; round < 5; round += 1) {
      const day = `2026-06-1${round}`;
      const got = await Promise.all(processes.map((claims) => claims.claim('600000000000000001', day)));
      const held = got.filter((claim) => claim !== null);
      expect(held).toHaveLength(1);
      // Another (channel, day) is free meanwhile.
      expect(await processes[0]?.claim('600000000000000002', day)).not.toBeNull();
      await held[0]?.release();
      expect(await processes[5]?.claim('600000000000000001', day)).not.toBeNull();
    }
  });

  it('a claim left by a process that died runs out with its lease, and its late release does not free the new holder', async () => {
    const [dead, living] = [await process('dead', 300), await process('living', 300)];
    const left = await dead.claim('600000000000000001', '2026-06-15');
    expect(left).not.toBeNull();
    expect(await living.claim('600000000000000001', '2026-06-15')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const taken = await living.claim('600000000000000001', '2026-06-15');
    expect(taken).not.toBeNull();
    await left?.release();
    expect(await dead.claim('600000000000000001', '2026-06-15')).toBeNull();
    await taken?.release();
    expect(await dead.claim('600000000000000001', '2026-06-15')).not.toBeNull();
  });

  it('a claim the store cannot answer is no claim, counted and failing the check until the store is back', async () => {
    const claims = await process('only');
    await postgresAdmin().query(`ALTER TABLE ${pg.schema}.wotd_delivery_claims RENAME TO claims_away`);
    try {
      expect(await claims.claim('600000000000000001', '2026-06-15')).toBeNull();
      expect(claims.watch.errorCounts().get('lock')).toBe(1);
    } finally {
      await postgresAdmin().query(`ALTER TABLE ${pg.schema}.claims_away RENAME TO wotd_delivery_claims`);
    }
    expect(await claims.claim('600000000000000001', '2026-06-15')).not.toBeNull();
    await claims.close();
    opened.splice(opened.indexOf(claims), 1);
    await expect(claims.watch.check()).rejects.toBeInstanceOf(StoreError);
  });
});
