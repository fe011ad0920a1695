import { afterEach, describe, expect, it } from 'vitest';
import { HELPER, MOD, modsGuild, OWNER, startBotWithGuild, type Cleanups } from './bot-on-server.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * /wotd-subscribe's intro form through the real discord.js client against the local Discord server: the command
 * answers with a modal (callback 9) filled in with the current intro, and its submit (interaction type 5) is checked
 * as the `intro` option is, the member's permission and the channel's subscription checked again.
 */
describe('the intro line form (Discord end to end)', () => {
  it('opens filled in, saves what is submitted with the same answer, and refuses bad text and members without permission', async () => {
    const { discord, guild, started } = await startBotWithGuild(cleanups, modsGuild({ channels: [{ name: 'daily' }, { name: 'other' }] }), {
      daily: { now: () => new Date('2026-06-15T07:00:00Z') },
      dailyPosts: false,
    });
    const { daily } = started;
    const channel = guild.channelId('daily');
    const intro = async () => (await daily.store.get(channel))?.intro;

    const invoke = (user: string, options: Record<string, string | boolean>) => discord.invokeCommand({ name: 'wotd-subscribe', options: { channel, ...options }, channelId: channel, user });
    expect((await invoke(MOD, { 'intro-edit': true }).waitForResponse()).content).toBe(
      `<#${channel}> has no daily post yet. Subscribe it with /wotd-subscribe first, then edit its intro line.`,
    );
    expect((await invoke(MOD, { intro: 'Hello {word}' }).waitForResponse()).content).toContain(`Subscribed <#${channel}>`);

    /** Opens the form as `user` and waits for the modal. */
    const open = async (user: string) => {
      const handle = invoke(user, { 'intro-edit': true });
      const callback = await handle.waitForCallback();
      expect(callback).toMatchObject({ type: 9, status: 204 });
      return handle;
    };
    const opened = await open(MOD);
    expect(opened.modal).toMatchObject({
      custom_id: `subscribe-intro:${channel}`,
      title: 'Intro line',
      components: [{ type: 18, label: 'The line above each post', component: { type: 4, custom_id: 'intro', value: 'Hello {word}', max_length: 200, required: false } }],
    });
    const submit = async (from: string, value: string, extra: { user?: string; forged?: boolean } = {}) => {
      const handle = discord.submitModal({ interactionId: from, values: { intro: value }, channelId: channel, ...extra });
      return (await handle.waitForResponse()).content;
    };
    expect(await submit(opened.id, 'Today: {word} on {date} @everyone')).toContain(
      'Changed: the intro line from “Hello {word}” to “Today: {word} on {date} @\u200beveryone”.',
    );
    expect(await intro()).toBe('Today: {word} on {date} @everyone');

    // The same checks as the `intro` option: an unknown placeholder, and a line over the limit from a client that
    // does not keep to the form's max_length.
    expect(await submit((await open(MOD)).id, 'Hi {wrod}')).toBe("I don't know the placeholder {wrod}. The intro can use {word}, {date}, {role}.");
    expect(await submit((await open(MOD)).id, 'x'.repeat(201), { forged: true })).toBe('The intro line can be at most 200 characters; that one has 201.');
    expect(() => discord.submitModal({ interactionId: opened.id, values: { intro: 'again' }, channelId: channel })).toThrow(/already submitted/);

    // A member without Manage Channels there gets nothing from a form: the permission is checked again on submit.
    expect(await submit((await open(MOD)).id, 'Taken over', { user: HELPER })).toBe(
      `You need the **Manage Channels** permission in <#${channel}> to manage its daily posts.`,
    );
    // Nor from a form whose subscription is gone by the time it is sent.
    const late = await open(OWNER);
    expect((await discord.invokeCommand({ name: 'wotd-unsubscribe', options: { channel }, channelId: channel, user: OWNER }).waitForResponse()).content).toContain('Unsubscribed');
    expect(await submit(late.id, 'Back again')).toBe(`<#${channel}> has no daily post yet. Subscribe it with /wotd-subscribe first, then edit its intro line.`);
    expect(await daily.store.get(channel)).toBeNull();
  });
});
