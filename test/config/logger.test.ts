import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/config/logger.ts';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('never writes a secret, wherever it appears', () => {
    const token = 'MTIzNDU2Nzg5.secret.token-value';
    const out = capture();
    const logger = createLogger({ level: 'info', secrets: [token], destination: out.stream });
    logger.info(`connecting with ${token}`);
    logger.info({ token, request: { headers: { authorization: `Bot ${token}` } }, note: `x${token}x` }, 'request');
    logger.info({ nested: { deeper: { value: token } } }, 'nested');
    expect(out.text()).not.toContain(token);
    expect(out.text()).toContain('[redacted]');
    expect(out.text().trim().split('\n')).toHaveLength(3);
  });

  it('keeps an error\'s message and stack while redacting secrets in them', () => {
    const token = 'MTIzNDU2Nzg5.secret.token-value';
    const out = capture();
    const logger = createLogger({ level: 'info', secrets: [token], destination: out.stream });
    logger.error({ err: new Error(`request with ${token} failed`) }, 'boom');
    const line = JSON.parse(out.text()) as { err: { type: string; message: string; stack: string } };
    expect(line.err.type).toBe('Error');
    expect(line.err.message).toBe('request with [redacted] failed');
    expect(line.err.stack).toContain('logger.test.ts');
    expect(out.text()).not.toContain(token);
  });

  it('scrubs the message pino takes from an error logged on its own', () => {
    const token = 'MTIzNDU2Nzg5.secret.token-value';
    const out = capture();
    createLogger({ level: 'info', secrets: [token], destination: out.stream }).error(new TypeError(`bad ${token}`));
    const line = JSON.parse(out.text()) as { msg: string; err: { type: string } };
    expect(line).toMatchObject({ msg: 'bad [redacted]', err: { type: 'TypeError' } });
  });

  it('serializes errors the same way when there is no secret to hide', () => {
    const out = capture();
    createLogger({ level: 'info', destination: out.stream }).warn({ err: new RangeError('plain') }, 'no secrets');
    expect(JSON.parse(out.text())).toMatchObject({ msg: 'no secrets', err: { type: 'RangeError', message: 'plain' } });
  });
});

describe('LOG_FORMAT', () => {
  it('auto: readable lines (pino-pretty) when the destination is a terminal, JSON lines otherwise; pretty and json force one', () => {
    for (const [format, isTTY, pretty] of [
      ['auto', true, true],
      ['auto', false, false],
      ['pretty', false, true],
      ['json', true, false],
    ] as const) {
      const out = capture();
      Object.assign(out.stream, { isTTY });
      const token = 'MTIzNDU2Nzg5.secret.token-value';
      const logger = createLogger({ level: 'info', format, secrets: [token], destination: out.stream });
      logger.info({ guilds: 3 }, `connected with ${token}`);
      // Colours at a terminal (none with NO_COLOR); the text is the same.
      const line = out.text().trim().replace(/\u001b\[[0-9;]*m/g, '');
      expect(line.split('\n'), `${format} on ${isTTY ? 'a terminal' : 'a pipe'}`).toHaveLength(pretty ? 2 : 1);
      expect(line).not.toContain(token);
      if (pretty) {
        expect(() => JSON.parse(line)).toThrow();
        expect(line).toMatch(/INFO.*connected with \[redacted\]/);
        expect(line).toMatch(/guilds: 3/);
      } else {
        expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'connected with [redacted]', guilds: 3 });
      }
    }
  });
});
