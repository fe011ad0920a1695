import { storeFailureKind, type WriteTrace } from '../store/store-watch.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';

const ENGLISH = translatorFor('en');

/** What a member is told when a command failed on the store before writing anything (in English). */
export const STORE_FAILED_REPLY = ENGLISH('store.failed');
/** …and when some of its writes went through first (every change command can be run again to finish). */
export const STORE_FAILED_PARTWAY_REPLY = ENGLISH('store.failedPartway');

/** The reply to work that failed on a store, saying whether anything changed; null for any other failure. */
export function storeFailureReply(error: unknown, trace: WriteTrace, t: Translate = ENGLISH): string | null {
  const kind = storeFailureKind(error, trace);
  if (kind === null) return null;
  return kind === 'partway' ? t('store.failedPartway') : t('store.failed');
}
