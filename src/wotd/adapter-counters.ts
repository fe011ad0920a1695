/** The adapter's running counts, shared (and incremented) by the lookups, the flights and the upstream requests. */
export interface AdapterCounters {
  lookups: number;
  /** Answered from a fresh cached value (or a remembered 404) without an upstream request. */
  cacheHits: number;
  /** Not answered from the cache: went (or joined a request going) to the service, perhaps to be served stale. */
  cacheMisses: number;
  /** Joined an identical request already under way. */
  coalesced: number;
  staleServed: number;
  /** Upstream attempts sent, retries included. */
  upstreamRequests: number;
  upstream429: number;
  /** Lookups that failed with rate_limited (busy) and had nothing stale to serve. */
  busy: number;
  /** Lookups answered from the database mirror (counted in cacheHits too). */
  mirrorHits: number;
}

export function createCounters(): AdapterCounters {
  return { lookups: 0, cacheHits: 0, cacheMisses: 0, coalesced: 0, staleServed: 0, upstreamRequests: 0, upstream429: 0, busy: 0, mirrorHits: 0 };
}
