/** Where the mirror's snapshots come from, from WOTD_MIRROR (see MirrorSetting in src/config/settings.ts). */
import { resolve } from 'node:path';
import { withoutPassword, type MirrorSetting } from '../../config/settings.ts';

export type MirrorSource =
  /** A site's listing, `<origin>/databases`, whose newest snapshot is used. */
  | { kind: 'site'; origin: string }
  /** One snapshot file's URL, revalidated at each refresh. */
  | { kind: 'url'; url: string }
  /** A snapshot file on this machine, read again when its size or time changes. */
  | { kind: 'file'; path: string };

/**
 * The source WOTD_MIRROR names: `on` is the site at `siteUrl`'s origin (WOTD_SITE_URL for the public service, else
 * the service's own); a URL whose path ends in .db is that one file, any other URL a site; null when off.
 */
export function mirrorSourceFor(setting: MirrorSetting, siteUrl: string): MirrorSource | null {
  switch (setting.kind) {
    case 'off':
      return null;
    case 'on':
      return { kind: 'site', origin: new URL(siteUrl).origin };
    case 'url': {
      const url = new URL(setting.url);
      return /\.db$/i.test(url.pathname) ? { kind: 'url', url: url.href } : { kind: 'site', origin: url.origin };
    }
    case 'file':
      return { kind: 'file', path: resolve(setting.path) };
  }
}

/** One line for logs, /healthz and the console banner (no password of a URL). */
export function describeSource(source: MirrorSource): string {
  switch (source.kind) {
    case 'site':
      return `${withoutPassword(source.origin)}/databases`;
    case 'url':
      return withoutPassword(source.url);
    case 'file':
      return source.path;
  }
}

/** Tells stored copies of different sources apart: a copy of another source is not used, and is replaced. */
export function sourceKey(source: MirrorSource): string {
  switch (source.kind) {
    case 'site':
      return `site:${source.origin}`;
    case 'url':
      return `url:${source.url}`;
    case 'file':
      return `file:${source.path}`;
  }
}
