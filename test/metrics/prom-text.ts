/**
 * Reads the Prometheus text exposition format (version 0.0.4) strictly enough for tests: every line must be a
 * comment, blank, or `name{label="value",…} number`; anything else throws, so a malformed exposition fails the test.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name = '', , labelText = '', valueText = ''] = match;
    samples.push({ name, labels: parseLabels(labelText, line), value: parseValue(valueText, line) });
  }
  return samples;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || match.index !== at) throw new Error(`bad labels in: ${line}`);
    const [, key = '', raw = ''] = match;
    labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

/** One scrape, for looking values up by name and labels. */
export class Scrape {
  constructor(readonly samples: Sample[]) {}

  static of(text: string): Scrape {
    return new Scrape(parsePrometheusText(text));
  }

  /** The sample with exactly these labels, or undefined. */
  get(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels);
    return this.samples.find(
      (sample) => sample.name === name && Object.keys(sample.labels).length === wanted.length && wanted.every(([k, v]) => sample.labels[k] === v),
    )?.value;
  }

  /** The sum over every sample of `name` whose labels include these (0 when there is none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.samples
      .filter((sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
      .reduce((total, sample) => total + sample.value, 0);
  }

  has(name: string): boolean {
    return this.samples.some((sample) => sample.name === name);
  }
}

/** GET `url`/metrics, which must answer 200 in the text format, parsed. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`);
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !/^text\/plain; version=0\.0\.4/.test(type)) throw new Error(`GET /metrics answered ${response.status} (${type})`);
  return Scrape.of(await response.text());
}
