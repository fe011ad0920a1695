import type { ChannelPermission, ModalContext, ModalSpec, Respondable } from '../replies/interactions.ts';
import { PERMISSION_NAMES } from '../replies/admin-replies.ts';
import type { Translate } from '../replies/i18n/translate.ts';
import { terminalText } from '../replies/terminal-text.ts';

/**
 * A form (Discord's modal) at the console: its one line of text is the next line typed, taken as it is (quotes,
 * colons and all), and handed to the command's form handler, which checks it exactly as Discord's submit.
 */
export interface PendingForm {
  modal: ModalSpec;
  /** The input the typed line fills. */
  inputId: string;
}

/** What the console prints for a form (its title, the channel, the current value, the help), and the form kept. */
export function formPrompt(modal: ModalSpec, t: Translate): { text: string; pending: PendingForm } | null {
  const input = modal.inputs[0];
  if (!input) return null;
  const channel = modal.customId.slice(modal.customId.indexOf(':') + 1);
  const current = input.value ? `“${terminalText(input.value)}”` : t('subscribe.value.none');
  const text = t('console.modal.prompt', { title: modal.title, channel: `#${terminalText(channel)}`, current, help: input.description ?? '' });
  return { text, pending: { modal, inputId: input.customId } };
}

/** The form sent back with `line` typed, for the person at the console (who may manage every channel, or not). */
export function formContext(form: PendingForm, line: string, base: Respondable, canManage: boolean): ModalContext {
  return {
    customId: form.modal.customId,
    invoker: base.invoker,
    get acknowledged() {
      return base.acknowledged;
    },
    defer: (options) => base.defer(options),
    respond: (reply) => base.respond(reply),
    value: (inputId) => (inputId === form.inputId ? line : null),
    // The console's channels are their names, all of them text channels.
    channel: async (channelId) => ({ id: channelId, name: channelId, kind: 'text' }),
    botPermissionsIn: async () => new Set(Object.keys(PERMISSION_NAMES) as ChannelPermission[]),
    memberCanManageChannel: async () => canManage,
  };
}
