import type { AutocompleteInteraction } from 'discord.js';
import type { AutocompleteChoice, AutocompleteContext } from '../replies/interactions.ts';
import { clip } from '../replies/embeds.ts';
import { invokerOf } from './invoker.ts';
import { watched, type SendingHooks } from './sending-hooks.ts';

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

export function createAutocompleteContext(interaction: AutocompleteInteraction, hooks?: SendingHooks): AutocompleteContext {
  const focused = interaction.options.getFocused(true);
  let responded = false;
  return {
    commandName: interaction.commandName,
    invoker: invokerOf(interaction),
    focused: { name: focused.name, value: String(focused.value) },
    respond(choices: AutocompleteChoice[]) {
      return watched(hooks, undefined, async () => {
        if (responded || interaction.responded) return;
        responded = true;
        await interaction.respond(autocompleteChoices(choices));
      });
    },
  };
}
