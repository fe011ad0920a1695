import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FrontDoor } from './front-door.ts';
import type { Gateway } from './gateway.ts';
import { handleRequest, type HttpDeps } from './http-core.ts';

/**
 * The local Discord's one HTTP server on loopback: REST through http-core.ts, the gateway by WebSocket upgrade,
 * and, with front-door spares, the front door process ahead of REST (front-door.ts).
 */
export interface HttpListener {
  /** Listens on an ephemeral loopback port; the REST and gateway addresses. */
  listen(): Promise<{ apiUrl: string; gatewayUrl: string }>;
  /** The front door's process id while it runs, else undefined. */
  readonly frontDoorPid: number | undefined;
  close(): Promise<void>;
}

export function httpListener(deps: HttpDeps, gateway: Gateway): HttpListener {
  const { keepAliveTimeoutMs, frontDoorSpares } = deps.world.options;
  const http: Server = createServer((req, res) => void handleRequest(deps, req, res));
  http.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  http.keepAliveTimeout = keepAliveTimeoutMs;
  if (frontDoorSpares > 0) {
    // The front door's spare connections wait, request-less, until a client needs one; Node's header and request
    // timeouts (60 s and 300 s, against clients that never send) would close them.
    http.headersTimeout = 0;
    http.requestTimeout = 0;
  }
  let frontDoor: FrontDoor | null = null;
  const closeHttp = async (): Promise<void> => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return {
    async listen() {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(0, '127.0.0.1', () => resolve());
      });
      const { port } = http.address() as AddressInfo;
      let restPort = port;
      if (frontDoorSpares > 0) {
        try {
          frontDoor = await FrontDoor.start(port, frontDoorSpares, (error) => deps.internalErrors.push(error));
        } catch (error) {
          await closeHttp();
          throw error;
        }
        restPort = frontDoor.port;
      }
      return { apiUrl: `http://127.0.0.1:${restPort}/api`, gatewayUrl: `ws://127.0.0.1:${port}` };
    },
    get frontDoorPid() {
      return frontDoor?.pid;
    },
    async close() {
      // The front door first: its spares would otherwise keep the HTTP server from closing, and it would open more.
      await frontDoor?.close();
      await gateway.close();
      await closeHttp();
    },
  };
}
