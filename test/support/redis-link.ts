import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the real Redis that a test cuts and restores, as a network or server outage
 * would look to the bot: cut() drops every connection and stops listening; restore() listens again on the same port.
 */
export interface RedisLink {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function redisLink(target: string): Promise<RedisLink> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let listenPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(port || 6379), hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(listenPort, '127.0.0.1', () => {
        listenPort = (server?.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server) server.close(() => resolve());
      else resolve();
      server = null;
    });
  await listen();
  return { url: `redis://127.0.0.1:${listenPort}`, cut: stop, restore: listen, close: stop };
}
