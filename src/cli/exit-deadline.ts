/**
 * The last word on stopping. Once the bot has been told to stop (SIGINT, SIGTERM) or has finished, the process must
 * end within seconds, whatever is stuck: a read of a hung network mount, an open of a FIFO that slipped past the
 * checks, a connection that never answers. Such a call holds a thread of libuv's pool, and then neither the event
 * loop drains nor does process.exit() return (it waits for that thread). So a timer, which keeps nothing alive,
 * says in one line why and ends the process with SIGKILL, the one exit nothing can hold up.
 */

/** How long a stop may take, from the signal or from the end of the command, before the process is ended. */
export const EXIT_DEADLINE_MS = 10_000;

export function armExitDeadline(why: string, ms = EXIT_DEADLINE_MS): void {
  const timer = setTimeout(() => {
    const holding = stillActive();
    process.stderr.write(`wotd-bot: ${why}, but something is still stuck after ${Math.round(ms / 1000)} s (a file or a connection that does not answer${holding}); ending the process now\n`);
    process.kill(process.pid, 'SIGKILL');
  }, ms);
  timer.unref();
}

/** What keeps the event loop alive, as node names it ("TCPWrap ×2, Timeout"), for the line that says why. */
function stillActive(): string {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  // The deadline's own timer is unref'd and not counted by node; nothing else is left out.
  const listed = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  return listed ? `; still open: ${listed}` : '';
}

/** While `start` runs: the first SIGINT or SIGTERM arms the deadline (the run mode's own handlers do the stopping). */
export function deadlineOnSignals(): () => void {
  let armed = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (armed) return;
    armed = true;
    armExitDeadline(`told to stop (${signal})`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
