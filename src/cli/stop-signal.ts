/** Resolves on the first SIGINT or SIGTERM, with the signal's name. */
export function nextSignal(): { promise: Promise<NodeJS.Signals>; dispose: () => void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    promise,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
