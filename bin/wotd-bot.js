#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ with plain node. `npm install` builds it (the prepare script); `npm run build`
// rebuilds it after a change to the sources.
const entry = new URL('../dist/src/wotd-bot.js', import.meta.url);
let compiled;
try {
  compiled = await import(entry.href);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== entry.href) throw error;
  process.stderr.write('wotd-bot: the compiled bot (dist/) is missing: run npm run build in the wotd-bot folder\n');
  process.exit(1);
}
process.exitCode = await compiled.runWotdBot(process.argv.slice(2));
