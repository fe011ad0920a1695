import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';

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
});
