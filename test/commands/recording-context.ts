import type {
  AutocompleteChoice,
  AutocompleteContext,
  ButtonContext,
  CommandContext,
  Invoker,
  OutgoingMessage,
} from '../../src/replies/interactions.ts';

/** What a command did with its interaction, in order. */
export type Recorded =
  | { kind: 'defer'; ephemeral: boolean }
  | { kind: 'respond'; message: OutgoingMessage }
  | { kind: 'update'; message: OutgoingMessage };

const INVOKER: Invoker = { userId: '1', guildId: '2', channelId: '3', canManageChannels: false };

/**
 * A command context that records instead of talking to Discord, and checks what Discord would check:
 * an interaction is deferred at most once, and only before anything else was sent.
 */
class Recorder {
  readonly events: Recorded[] = [];
  acknowledged = false;
  private deferred = false;

  defer(options?: { ephemeral?: boolean }): Promise<void> {
    if (this.acknowledged) throw new Error('defer() after the interaction was already acknowledged');
    this.deferred = true;
    this.acknowledged = true;
    this.events.push({ kind: 'defer', ephemeral: options?.ephemeral ?? false });
    return Promise.resolve();
  }

  record(kind: 'respond' | 'update', message: OutgoingMessage): Promise<void> {
    this.acknowledged = true;
    this.events.push({ kind, message });
    return Promise.resolve();
  }

  get wasDeferred(): boolean {
    return this.deferred;
  }

  /** The one answer that was sent (respond or update); fails the test when there was not exactly one. */
  get answer(): OutgoingMessage {
    const answers = this.events.filter((event) => event.kind !== 'defer');
    if (answers.length !== 1) throw new Error(`expected one answer, got ${JSON.stringify(this.events)}`);
    return (answers[0] as { message: OutgoingMessage }).message;
  }
}

export type RecordingCommandContext = CommandContext & { recorder: Recorder };
export type RecordingButtonContext = ButtonContext & { recorder: Recorder };

export function commandContext(commandName: string, options: Record<string, string | number> = {}): RecordingCommandContext {
  const recorder = new Recorder();
  return {
    recorder,
    commandName,
    invoker: INVOKER,
    options: {
      getString: (name) => {
        const value = options[name];
        return typeof value === 'string' ? value : null;
      },
      getInteger: (name) => {
        const value = options[name];
        return typeof value === 'number' ? value : null;
      },
      getBoolean: () => null,
      getSubcommand: () => null,
      getChannel: () => null,
      getRole: () => null,
    },
    get acknowledged() {
      return recorder.acknowledged;
    },
    defer: (deferOptions) => recorder.defer(deferOptions),
    respond: (message) => recorder.record('respond', message),
  };
}

export function buttonContext(customId: string): RecordingButtonContext {
  const recorder = new Recorder();
  return {
    recorder,
    customId,
    invoker: INVOKER,
    get acknowledged() {
      return recorder.acknowledged;
    },
    defer: (deferOptions) => recorder.defer(deferOptions),
    respond: (message) => recorder.record('respond', message),
    update: (message) => recorder.record('update', message),
  };
}

export function autocompleteContext(commandName: string, focused: { name: string; value: string }): AutocompleteContext & { choices: AutocompleteChoice[] | null } {
  const context = {
    choices: null as AutocompleteChoice[] | null,
    commandName,
    invoker: INVOKER,
    focused,
    respond(choices: AutocompleteChoice[]) {
      context.choices = choices;
      return Promise.resolve();
    },
  };
  return context;
}

/** Everything a message shows, as one string, for "contains" checks. */
export function textOf(message: OutgoingMessage): string {
  const parts = [message.content ?? ''];
  for (const embed of message.embeds ?? []) {
    parts.push(embed.title ?? '', embed.description ?? '', embed.footer?.text ?? '');
    for (const field of embed.fields ?? []) parts.push(field.name, field.value);
  }
  return parts.join('\n');
}
