import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/settings.ts';

const EXPECTED = 'expected a port number from 0 to 65535 (0: any free port); leave it unset to turn the endpoint off';

describe('METRICS_PORT and METRICS_HOST', () => {
  it('are off and loopback by default; empty means unset', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '  ' }).METRICS_PORT).toBeUndefined();
    expect(loadConfig({}).METRICS_HOST).toBe('127.0.0.1');
  });

  it('take a port from 0 to 65535 and an address', () => {
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(loadConfig({ METRICS_PORT: ' 0 ' }).METRICS_PORT).toBe(0);
    expect(loadConfig({ METRICS_PORT: '65535' }).METRICS_PORT).toBe(65535);
    expect(loadConfig({ METRICS_HOST: '0.0.0.0' }).METRICS_HOST).toBe('0.0.0.0');
    expect(loadConfig({ METRICS_HOST: '::' }).METRICS_HOST).toBe('::');
    expect(loadConfig({ METRICS_HOST: 'metrics.internal' }).METRICS_HOST).toBe('metrics.internal');
  });

  it('refuse anything else, naming the variable, the value and what is expected', () => {
    for (const bad of ['65536', '-1', '1.5', 'abc', '9464x', '99999999999999999999', '0x10']) {
      expect(() => loadConfig({ METRICS_PORT: bad }), bad).toThrow(new ConfigError(`Invalid METRICS_PORT=${JSON.stringify(bad)}: ${EXPECTED}`));
    }
    expect(() => loadConfig({ METRICS_HOST: 'http://0.0.0.0' })).toThrow(
      new ConfigError('Invalid METRICS_HOST="http://0.0.0.0": expected an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::'),
    );
  });
});
