import {
  AttachmentBuilder,
  ButtonStyle,
  ComponentType,
  MessageFlags,
  MessagePayload,
  TextInputStyle,
  type APIActionRowComponent,
  type APIModalInteractionResponseCallbackData,
  type APIButtonComponentWithCustomId,
  type APIEmbed,
  type Interaction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type InteractionUpdateOptions,
  type JSONEncodable,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord.js';
import type { ButtonSpec, ModalSpec, OutgoingFile, OutgoingMessage } from '../replies/interactions.ts';
import { clip } from '../replies/embeds.ts';

// An OutgoingMessage as discord.js sends it: a new message (reply, follow-up) or a replacement (edit, update).
const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;
const BUTTON_LABEL_LIMIT = 80;

/** A method, not an own property: the data stays what it was to look at (and to compare in tests). */
const SENT_AS_IS = {
  toJSON(this: object) {
    return { ...this };
  },
};

/**
 * Marks data already in the API's own form to be sent as it is. discord.js runs plain objects in a payload through
 * its jsonTransformer (toSnakeCase: lodash's snakeCase on every key, all the way down) but sends a JSONEncodable's
 * toJSON() unchanged; in bench:commands' profile that re-keying of our embeds was a large part of each reply's cost,
 * as was building and validating buttons with discord.js's builders.
 */
export function sentAsIs<T extends object>(data: T): T & JSONEncodable<T> {
  return Object.assign(Object.create(SENT_AS_IS) as JSONEncodable<T>, data);
}

type ButtonRowData = APIActionRowComponent<APIButtonComponentWithCustomId>;
export type ButtonRow = ButtonRowData & JSONEncodable<ButtonRowData>;

export function buttonRows(buttons: ButtonSpec[] | undefined): ButtonRow[] {
  return rowsOf(buttons).map(sentAsIs);
}

function rowsOf(buttons: ButtonSpec[] | undefined): ButtonRowData[] {
  const rows: ButtonRowData[] = [];
  const specs = (buttons ?? []).slice(0, BUTTONS_PER_ROW * MAX_ROWS);
  for (let start = 0; start < specs.length; start += BUTTONS_PER_ROW) {
    const components = specs.slice(start, start + BUTTONS_PER_ROW).map(
      (spec): APIButtonComponentWithCustomId => ({
        type: ComponentType.Button,
        custom_id: spec.customId,
        label: clip(spec.label, BUTTON_LABEL_LIMIT),
        style: spec.style === 'primary' ? ButtonStyle.Primary : spec.style === 'danger' ? ButtonStyle.Danger : ButtonStyle.Secondary,
        disabled: spec.disabled ?? false,
      }),
    );
    rows.push({ type: ComponentType.ActionRow, components });
  }
  return rows;
}

function embedsAsIs(embeds: APIEmbed[]): Array<APIEmbed & JSONEncodable<APIEmbed>> {
  return embeds.map(sentAsIs);
}

function allowedMentionsOf(message: OutgoingMessage): { parse: []; roles: string[] } {
  return { parse: [], roles: message.mentionRoleIds ?? [] };
}

/** A new message (reply or follow-up): only what the message has. */
export function newMessagePayload(message: OutgoingMessage): InteractionReplyOptions {
  const payload: InteractionReplyOptions = { allowedMentions: allowedMentionsOf(message) };
  if (message.content !== undefined) payload.content = message.content;
  if (message.embeds !== undefined) payload.embeds = embedsAsIs(message.embeds);
  if (message.buttons !== undefined && message.buttons.length > 0) payload.components = buttonRows(message.buttons);
  if (message.files !== undefined && message.files.length > 0) payload.files = attachmentsOf(message.files);
  if (message.ephemeral) payload.flags = MessageFlags.Ephemeral;
  return payload;
}

/*
 * An interaction's reply and update, with their request body already made. Given options, discord.js makes the body
 * in MessagePayload.resolveBody, which first asks what the payload's target is (a webhook? a message?) through
 * require() calls: four per answer, together about 5 µs in bench:commands' bot threads, whatever the answer. Given
 * a MessagePayload whose body is made, it sends that body as it is. The body is the one resolveBody makes of
 * newMessagePayload's and replacementPayload's options for an interaction (the client enforces no nonce), which
 * test/discord/made-payloads.test.ts holds them to; an answer with files keeps discord.js's own path.
 */

/** A reply (a new message answering the interaction), as discord.js would make it of newMessagePayload(message). */
export function replyPayload(interaction: Interaction, message: OutgoingMessage): MessagePayload | InteractionReplyOptions {
  if (message.files !== undefined && message.files.length > 0) return newMessagePayload(message);
  const buttons = message.buttons !== undefined && message.buttons.length > 0 ? rowsOf(message.buttons) : undefined;
  return made(interaction, messageBody(message.content, message.embeds, buttons, message, message.ephemeral ? MessageFlags.Ephemeral : undefined));
}

/** An update of the button's message, as discord.js would make it of replacementPayload(message). */
export function updatePayload(interaction: Interaction, message: OutgoingMessage): MessagePayload | InteractionUpdateOptions {
  if (message.files !== undefined && message.files.length > 0) return replacementPayload(message);
  return made(interaction, messageBody(message.content ?? '', message.embeds ?? [], rowsOf(message.buttons), message, undefined));
}

/** The fields resolveBody sets for these options, in its order; those it leaves undefined are not sent. */
function messageBody(
  content: string | undefined,
  embeds: APIEmbed[] | undefined,
  components: ButtonRowData[] | undefined,
  message: OutgoingMessage,
  flags: number | undefined,
): RESTPostAPIChannelMessageJSONBody {
  return { content, tts: false, nonce: undefined, enforce_nonce: false, embeds, components, allowed_mentions: allowedMentionsOf(message), flags };
}

function made(interaction: Interaction, body: RESTPostAPIChannelMessageJSONBody): MessagePayload {
  const payload = new MessagePayload(interaction, {});
  payload.body = body;
  payload.files = [];
  return payload;
}

function attachmentsOf(files: OutgoingFile[]): AttachmentBuilder[] {
  return files.map((file) => new AttachmentBuilder(Buffer.from(file.text, 'utf8'), { name: file.name }));
}

/** A replacement of an existing message: whatever the new message lacks is cleared. */
export function replacementPayload(message: OutgoingMessage): InteractionEditReplyOptions {
  const payload: InteractionEditReplyOptions = {
    content: message.content ?? '',
    embeds: embedsAsIs(message.embeds ?? []),
    components: buttonRows(message.buttons),
    allowedMentions: allowedMentionsOf(message),
  };
  // Only answers that come after a deferral carry files (the export), so the message replaced never has any.
  if (message.files !== undefined && message.files.length > 0) payload.files = attachmentsOf(message.files);
  return payload;
}

/** A form as Discord's modal: each input a one-line text input under its label (component 18), sent as it is. */
export function modalPayload(modal: ModalSpec): APIModalInteractionResponseCallbackData & JSONEncodable<APIModalInteractionResponseCallbackData> {
  return sentAsIs({
    custom_id: modal.customId,
    title: modal.title,
    components: modal.inputs.map((input) => ({
      type: ComponentType.Label as const,
      label: input.label,
      ...(input.description ? { description: input.description } : {}),
      component: {
        type: ComponentType.TextInput as const,
        custom_id: input.customId,
        style: TextInputStyle.Short,
        max_length: input.maxLength,
        required: false,
        ...(input.value ? { value: clip(input.value, input.maxLength) } : {}),
      },
    })),
  });
}
