/**
 * The harness's front door, a child process started by front-door.ts (read its comment first). It listens on its own
 * loopback port, keeps `spares` connections to the harness open in advance, and joins each client connection it
 * accepts to one of them, byte for byte, in both directions; each spare taken is replaced at once. Its event loop is
 * idle, so it accepts a burst of new connections within milliseconds, and the harness, however busy, accepts nothing
 * new while its spares last.
 *
 * argv: <harness port> <spares>. Messages to the parent (FrontDoorMessage): `listening` with the port once every
 * spare is connected, `error` for anything that is the harness's fault. A client that resets or drops its connection
 * is not an error (an HTTP server ignores it too): both ends of that pair are closed. The message `close` (or the
 * parent going away) closes everything and lets the process end.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { MAX_FRONT_DOOR_SPARES, type FrontDoorMessage } from './front-door.ts';

const harnessPort = Number(process.argv[2]);
const spares = Number(process.argv[3]);
/** Once the parent has gone there is nobody to tell (and sending then would throw): closeAll follows. */
const send = (message: FrontDoorMessage) => {
  if (process.connected) process.send?.(message);
};

if (!process.send) throw new Error('front-door-process.ts runs as a child process with an IPC channel (front-door.ts starts it)');
if (!Number.isInteger(harnessPort) || harnessPort < 1 || harnessPort > 65_535) throw new Error(`bad harness port ${process.argv[2]}`);
if (!Number.isInteger(spares) || spares < 1 || spares > MAX_FRONT_DOOR_SPARES) throw new Error(`bad spare count ${process.argv[3]}`);

/** Spare connections to the harness, connected and not yet given to a client. */
const idle = new Set<Socket>();
/** Every socket this process holds (spares, clients and their harness ends), so closing can end them all. */
const open = new Set<Socket>();
let connecting = 0;
let closing = false;
let announced = false;

const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  track(client);
  const upstream = takeSpare() ?? openUpstream();
  join(client, upstream);
  refill();
});
server.on('error', (error) => fail('the front door stopped listening', error));

function track(socket: Socket): void {
  open.add(socket);
  socket.once('close', () => open.delete(socket));
}

function fail(what: string, error: Error): void {
  if (!closing) send({ kind: 'error', message: `${what}: ${error.message}` });
}

/** A new connection to the harness; failing to connect is the harness's fault and is reported. */
function openUpstream(onConnect?: () => void): Socket {
  const socket = connect({ port: harnessPort, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
  track(socket);
  const onConnectError = (error: Error) => fail('a connection to the harness failed', error);
  socket.once('error', onConnectError);
  socket.once('connect', () => {
    socket.off('error', onConnectError);
    onConnect?.();
  });
  return socket;
}

function takeSpare(): Socket | undefined {
  for (const socket of idle) {
    idle.delete(socket);
    return socket;
  }
  return undefined;
}

/**
 * Opens spares until `spares` are connected or connecting; announces the port once the first round is complete. The
 * harness writes nothing to a connection before its request (front-door.ts turns its header timeouts off), so a
 * spare holds no stray bytes; one the harness closes is dropped and replaced.
 */
function refill(): void {
  while (!closing && idle.size + connecting < spares) {
    connecting++;
    let connected = false;
    const socket = openUpstream(() => {
      connected = true;
      connecting--;
      socket.on('error', (error) => {
        if (idle.has(socket)) fail('a spare connection to the harness broke', error);
      });
      idle.add(socket);
      if (!announced && idle.size >= spares) announce();
    });
    socket.once('close', () => {
      if (!connected) connecting--;
      if (idle.delete(socket)) refill();
    });
  }
}

function announce(): void {
  announced = true;
  server.listen(0, '127.0.0.1', () => send({ kind: 'listening', port: (server.address() as AddressInfo).port }));
}

/** Relays both ways; an end is passed on (half-close), and when either side is gone the other is closed too. */
function join(client: Socket, upstream: Socket): void {
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
}

function closeAll(): void {
  if (closing) return;
  closing = true;
  server.close();
  for (const socket of open) socket.destroy();
  process.disconnect?.();
}

process.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'close') closeAll();
});
process.once('disconnect', closeAll);
refill();
