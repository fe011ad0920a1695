/** The refresher's options, and what it reports: see mirror-refresh.ts. */
import type { Logger } from '../../config/logger.ts';
import type { Clock, Timers } from '../clock.ts';
import type { IsoDate } from '../dates.ts';
import type { FetchLike } from '../http-client.ts';
import type { HistoryPage, Lookup, LookupOptions } from '../lookup.ts';
import type { SiteRequester } from '../upstream-request.ts';
import type { MirrorHolder } from './mirror-holder.ts';
import type { MirrorSource } from './mirror-source.ts';
import type { MirrorStore, RefreshOutcome } from './mirror-store.ts';

/** What the refresher needs of the adapter: today, history pages, and requests to the site under its budget. */
export interface MirrorLookup extends SiteRequester {
  today(): IsoDate;
  getPrevious(date: IsoDate | undefined, limit: number, options?: LookupOptions): Promise<Lookup<HistoryPage>>;
}

export interface MirrorRefresherOptions {
  source: MirrorSource;
  store: MirrorStore;
  holder: MirrorHolder;
  lookup: MirrorLookup;
  logger: Logger;
  now?: Clock;
  timers?: Timers;
  random?: () => number;
  fetch?: FetchLike;
  /** How long the site may take to answer or to send the next bytes (default 10 s). */
  timeoutMs?: number;
  /** A download's whole deadline (default 5 minutes). */
  downloadDeadlineMs?: number;
  /** The largest snapshot accepted (default 50 MB). */
  maxBytes?: number;
  maxRows?: number;
  /** Where the private temporary directory of a download is made (default the system's). */
  tempParent?: string;
  /** This process in the shared claim (default a random id). */
  owner?: string;
}

export interface RefreshReport {
  outcome: RefreshOutcome;
  detail: string;
  at: number;
}

/** What /healthz, the metrics and the console banner show of the mirror. */
export interface MirrorStatus {
  source: string;
  /** A mirror is loaded and answering. */
  inUse: boolean;
  rows: number;
  newest: IsoDate | null;
  coveredThrough: IsoDate | null;
  /** The snapshot file the copy came from. */
  snapshot: string | null;
  skippedRows: number;
  /** The last refresh of any process sharing the store. */
  lastRefresh: RefreshReport | null;
  nextRefreshAt: number | null;
  /** This process's refreshes, by outcome. */
  refreshes: Record<RefreshOutcome, number>;
}
