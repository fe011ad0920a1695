#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
const { hideChannelCacheWarning } = await import('../src/cli/process-warnings.ts');
hideChannelCacheWarning();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
