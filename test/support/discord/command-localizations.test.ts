import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordServer, type DiscordServer } from './index.ts';

let discord: DiscordServer;

beforeAll(async () => {
  discord = await startDiscordServer();
});

afterAll(async () => {
  await discord?.close();
});

async function register(command: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${discord.apiUrl}/v10/applications/${discord.applicationId}/commands`, {
    method: 'PUT',
    headers: { Authorization: `Bot ${discord.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify([command]),
  });
  return { status: response.status, body: await response.json() };
}

const base = {
  name: 'wotd-find',
  description: 'Find a word',
  options: [{ type: 3, name: 'word', description: 'The word', name_localizations: { de: 'wort' } }],
};

describe('the local Discord server checks command localizations as Discord does', () => {
  it('takes localized names and descriptions that keep the rules', async () => {
    const ok = await register({ ...base, name_localizations: { de: 'wotd-suche', ja: 'wotd-検索' }, description_localizations: { de: 'Sucht ein Wort' } });
    expect(ok.status).toBe(200);
  });

  it.each([
    ['an upper-case localized name', { name_localizations: { de: 'Wotd-Suche' } }, 'name_localizations'],
    ['a localized name with a space', { name_localizations: { fr: 'wotd chercher' } }, 'name_localizations'],
    ['an unknown locale', { name_localizations: { 'de-AT': 'wotd-suche' } }, 'name_localizations'],
    ['a localized description over 100 characters', { description_localizations: { es: 'x'.repeat(101) } }, 'description_localizations'],
  ])('refuses %s with 50035', async (_what, extra, field) => {
    const refused = await register({ ...base, ...extra });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 50035, errors: { 0: { [field]: expect.anything() } } });
  });

  it('refuses two options that share a localized name', async () => {
    const refused = await register({
      ...base,
      options: [
        { type: 3, name: 'word', description: 'The word', name_localizations: { de: 'wort' } },
        { type: 3, name: 'term', description: 'A term', name_localizations: { de: 'wort' } },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 50035, errors: { 0: { options: { 1: { name_localizations: expect.anything() } } } } });
  });
});
