import type { IntlMessageFormat } from 'intl-messageformat';

type Element = ReturnType<IntlMessageFormat['getAst']>[number];

/** The names a message's placeholders use, nested plural and select branches included. */
export function placeholders(elements: Element[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    // 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural (TYPE of @formatjs/icu-messageformat-parser).
    if (element.type >= 1 && element.type <= 6 && 'value' in element && typeof element.value === 'string') into.add(element.value);
    if ((element.type === 5 || element.type === 6) && 'options' in element) {
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    }
  }
  return into;
}
