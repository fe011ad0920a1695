import { WebSocket } from 'ws';

export interface Frame {
  op: number;
  t?: string;
  s?: number;
  d?: unknown;
}

/** A bare gateway client: collects frames, sends payloads, reports the close code. */
export class RawGateway {
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;
  private waiters: (() => void)[] = [];
  private closeCode: number | null = null;

  constructor(url: string) {
    this.socket = new WebSocket(`${url}?v=10&encoding=json`);
    this.opened = new Promise((resolve) => this.socket.once('open', () => resolve()));
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code) => {
        this.closeCode = code;
        for (const wake of this.waiters.splice(0)) wake();
        resolve(code);
      }),
    );
    this.socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  async send(payload: unknown): Promise<void> {
    await this.opened;
    this.socket.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  async next(match: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.closeCode !== null) throw new Error(`the gateway closed the connection (${this.closeCode}) before the awaited frame`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(code: number): Promise<number> {
    this.socket.close(code);
    return this.closed;
  }
}
