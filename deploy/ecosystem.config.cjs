// wotd-bot under pm2: docs/deploying.md says how to use it. From the folder that holds the bot's .env and data/
// (its working folder): pm2 start node_modules/wotd-bot/deploy/ecosystem.config.cjs, or a copy of this file.
const { join } = require('node:path');

module.exports = {
  apps: [
    {
      name: 'wotd-bot',
      script: join(__dirname, '..', 'bin', 'wotd-bot.js'),
      args: 'start',
      interpreter: 'node',
      // .env and data/store.sqlite are read and kept here: the folder pm2 was started from.
      cwd: process.cwd(),
      // One process per store (the bot locks it): never cluster mode or more instances.
      exec_mode: 'fork',
      instances: 1,
      autorestart: true,
      // Exit code 2 is a setting to fix (a bad value, no token), not a crash: it is not restarted.
      stop_exit_codes: [2],
      exp_backoff_restart_delay: 1000,
      // SIGTERM lets interactions in progress finish (up to 5 s) and closes the store; pm2's default is 1.6 s.
      kill_timeout: 30000,
      // The bot logs to standard error: one JSON object a line here (no terminal), with pm2's own time stamps off.
      merge_logs: true,
    },
  ],
};
