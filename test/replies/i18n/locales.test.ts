import { describe, expect, it } from 'vitest';
import { catalogLocaleOf } from '../../../src/replies/i18n/locales.ts';
import { translatorFor } from '../../../src/replies/i18n/translate.ts';

describe('catalogLocaleOf', () => {
  it.each([
    ['es-419', 'es'],
    ['es-ES', 'es'],
    ['en-GB', 'en'],
    ['pt-BR', 'pt-BR'],
    ['zh-CN', 'zh-CN'],
    ['de_DE.UTF-8', 'de'],
    ['fr_CA', 'fr'],
    ['zh-TW', 'en'],
    ['pt-PT', 'en'],
    ['es-MX', 'es'],
    ['ko', 'en'],
    ['', 'en'],
    [undefined, 'en'],
  ])('%s reads the %s catalog', (locale, catalog) => {
    expect(catalogLocaleOf(locale)).toBe(catalog);
  });
});

describe('translatorFor', () => {
  it('falls back to English for a locale without a catalog', () => {
    expect(translatorFor('ko')('common.tryAgain')).toBe(translatorFor('en-US')('common.tryAgain'));
  });
});
