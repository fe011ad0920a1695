/**
 * The import rules of docs/architecture.md, checked by `npm test` (npm run deps).
 *
 * Layers, highest first. A module may import from its own layer and from any layer below it, never from one above:
 *
 *   entry points  src/*.ts (the CLI dispatcher, the run-mode switch), bin/
 *   transports    src/discord/, src/console/, src/cli/   (and they do not import one another)
 *   wiring        src/cluster/ (Redis-backed implementations), src/metrics/ (observes the layers below)
 *   commands      commands/
 *   replies       src/replies/ (transport-neutral messages, embeds, interaction types)
 *   schedule      src/schedule/, src/learning/ (one level: the daily posts and the learning loop beside them)
 *   domain        src/wotd/
 *   store         src/store/
 *   config        src/config/ (settings, logging, one-line message text: imports nothing of ours)
 *
 * src/service/ is a separate program (our own implementation of the Word-of-the-Day API): it may use the domain's
 * types (src/wotd/) and src/config/, and only the entry points and src/cli/ start it.
 *
 * Tests are not cruised: they may import anything.
 */

/** Layer name and the paths it holds, highest first. */
const LAYERS = [
  ['entry points', '^(src/[^/]+\\.ts$|bin/)'],
  ['transports', '^src/(discord|console|cli)/'],
  ['wiring', '^src/(cluster|metrics)/'],
  ['commands', '^commands/'],
  ['replies', '^src/replies/'],
  ['schedule', '^src/(schedule|learning)/'],
  ['domain', '^src/wotd/'],
  ['store', '^src/store/'],
  ['config', '^src/config/'],
];

const upward = LAYERS.slice(1).map(([name, path], index) => ({
  name: `no-upward-import-from-${name.replace(/ /g, '-')}`,
  comment: `${name} may not import from a layer above it (${LAYERS.slice(0, index + 1).map(([above]) => above).join(', ')}); see docs/architecture.md`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(0, index + 1).map(([, above]) => above) },
}));

const TRANSPORTS = ['discord', 'console', 'cli'];
const sideways = TRANSPORTS.map((transport) => ({
  name: `no-transport-to-transport-from-${transport}`,
  comment: `The transports are independent: src/${transport}/ may not import another transport; share through src/replies/`,
  severity: 'error',
  from: { path: `^src/${transport}/` },
  to: { path: `^src/(${TRANSPORTS.filter((other) => other !== transport).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: break it by moving the shared piece down a layer or by inverting the dependency',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    ...sideways,
    {
      name: 'service-is-separate',
      comment: 'src/service/ may use only the domain types (src/wotd/) and src/config/',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^(src|commands)/', pathNot: '^src/(service|wotd|config)/' },
    },
    {
      name: 'only-entry-points-start-the-service',
      comment: 'Only the entry points and src/cli/ start the service',
      severity: 'error',
      from: { path: '^(src|commands)/', pathNot: '^(src/[^/]+\\.ts$|src/service/|src/cli/)' },
      to: { path: '^src/service/' },
    },
    {
      name: 'run-mode-loads-the-console-lazily',
      comment: 'run-mode.ts loads the console and the embedded service only in console mode (import()), so a bot on Discord keeps none of their code in memory',
      severity: 'error',
      from: { path: '^src/run-mode\\.ts$' },
      to: { path: '^src/(console|service)/', dependencyTypesNot: ['type-only', 'dynamic-import'] },
    },
    {
      name: 'domain-knows-no-discord',
      comment: 'The domain, the store and the config know no Discord',
      severity: 'error',
      from: { path: '^src/(wotd|store|config)/' },
      to: { path: ['node_modules/(discord\\.js|@discordjs)/'] },
    },
    {
      name: 'schedule-uses-discord-types-only',
      comment: 'The schedule may name the embed type it posts (a type-only import), nothing of discord.js at run time',
      severity: 'error',
      from: { path: '^src/schedule/' },
      to: { path: ['node_modules/(discord\\.js|@discordjs)/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'learning-knows-no-discord',
      comment: 'The learning loop (quiz, streaks, saved words, review) knows no Discord, not even its types',
      severity: 'error',
      from: { path: '^src/learning/' },
      to: { path: ['node_modules/(discord\\.js|@discordjs)/'] },
    },
    {
      name: 'config-imports-nothing-of-ours',
      comment: 'src/config/ is the bottom layer: it imports only itself and packages',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^(src|commands|bin)/', pathNot: '^src/config/' },
    },
    {
      name: 'no-entry-point-imports',
      comment: 'Nothing below the entry points imports one (only bin/ and the entry points themselves)',
      severity: 'error',
      from: { pathNot: '^(bin/|src/[^/]+\\.ts$)' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'not-to-test',
      comment: 'Shipped code does not import test code',
      severity: 'error',
      from: { path: '^(src|commands|bin)/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports (and that is not an entry point) is dead code or a missing import',
      severity: 'error',
      from: { orphan: true, pathNot: ['^bin/', '^src/[^/]+\\.ts$', '\\.d\\.ts$'] },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve to a file or an installed package',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type import running upward is still a design dependency.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
