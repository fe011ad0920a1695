import type { AutocompleteInteraction } from 'discord.js';
import type { AutocompleteChoice, AutocompleteContext, Invoker } from '../replies/interactions.ts';
import { clip } from '../replies/embeds.ts';
import { invokerOf } from './invoker.ts';
import type { SendingHooks } from './sending-hooks.ts';

const MAX_CHOICES = 25;
const CHOICE_TEXT_LIMIT = 100;

/** Choices as Discord takes them: at most 25, names cut to 100 characters, values whole or left out. */
export function autocompleteChoices(choices: AutocompleteChoice[]): AutocompleteChoice[] {
  return (
    choices
      // A value longer than Discord allows cannot be clipped without changing its meaning, so it is left out.
      .filter((choice) => choice.name.trim().length > 0 && choice.value.length > 0 && choice.value.length <= CHOICE_TEXT_LIMIT)
      .slice(0, MAX_CHOICES)
      .map((choice) => ({ name: clip(choice.name, CHOICE_TEXT_LIMIT), value: choice.value }))
  );
}

/** A class, like the other contexts: an object literal's method would be a new closure per interaction. */
class DiscordAutocompleteContext implements AutocompleteContext {
  readonly commandName: string;
  readonly invoker: Invoker;
  readonly focused: { name: string; value: string };
  private responded = false;

  constructor(
    private readonly interaction: AutocompleteInteraction,
    private readonly hooks: SendingHooks | undefined,
  ) {
    const focused = interaction.options.getFocused(true);
    this.commandName = interaction.commandName;
    this.invoker = invokerOf(interaction);
    this.focused = { name: focused.name, value: String(focused.value) };
  }

  async respond(choices: AutocompleteChoice[]): Promise<void> {
    this.hooks?.sending();
    if (!this.responded && !this.interaction.responded) {
      this.responded = true;
      await this.interaction.respond(autocompleteChoices(choices));
    }
    this.hooks?.responded();
  }
}

export function createAutocompleteContext(interaction: AutocompleteInteraction, hooks?: SendingHooks): AutocompleteContext {
  return new DiscordAutocompleteContext(interaction, hooks);
}
