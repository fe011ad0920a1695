import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the real Redis (or PostgreSQL: storeLink) that a test cuts and restores, as a
 * network or server outage would look to the bot: cut() drops every connection and stops listening; restore()
 * listens again on the same port. `url` is the target's URL (user, path and query kept) with the proxy's address.
 */
export interface RedisLink {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export function redisLink(target: string): Promise<RedisLink> {
  return storeLink(target);
}

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'rediss:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

export async function storeLink(target: string): Promise<RedisLink> {
  const { hostname, port: targetPort, protocol } = new URL(target);
  const port = targetPort || String(DEFAULT_PORTS[protocol] ?? 6379);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let listenPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(port), hostname);
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
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(listenPort);
  return { url: url.href, cut: stop, restore: listen, close: stop };
}
