import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { describeSource, mirrorSourceFor, sourceKey } from '../../../src/wotd/mirror/mirror-source.ts';

it('WOTD_MIRROR names a site, one file, a local path, or nothing', () => {
  expect(mirrorSourceFor({ kind: 'on' }, 'https://wotd.site/some/page')).toEqual({ kind: 'site', origin: 'https://wotd.site' });
  expect(mirrorSourceFor({ kind: 'off' }, 'https://wotd.site')).toBeNull();
  expect(mirrorSourceFor({ kind: 'url', url: 'https://mirror.example/databases' }, 'https://wotd.site')).toEqual({ kind: 'site', origin: 'https://mirror.example' });
  expect(mirrorSourceFor({ kind: 'url', url: 'https://mirror.example/files/wotd_2025-01.DB' }, 'https://wotd.site')).toEqual({
    kind: 'url',
    url: 'https://mirror.example/files/wotd_2025-01.DB',
  });
  expect(mirrorSourceFor({ kind: 'file', path: 'data/x.db' }, 'https://wotd.site')).toEqual({ kind: 'file', path: resolve('data/x.db') });
});

it('is shown without a password, and told apart from another source', () => {
  const source = { kind: 'site', origin: 'https://user:secret@mirror.example' } as const;
  expect(describeSource(source)).toBe('https://***@mirror.example/databases');
  expect(sourceKey(source)).not.toBe(sourceKey({ kind: 'site', origin: 'https://wotd.site' }));
});
