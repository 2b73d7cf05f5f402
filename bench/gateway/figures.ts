/**
 * run.ts's table: one path's figures in a row (a load and a mode), printed beside the direct calls' and, with
 * the floor relay, as ratios to it; and the median of each figure over rounds.
 */
import type { Path } from './measure';

export interface Figures {
  p50: number;
  p99: number;
  /** Added over the direct calls' percentiles in the same row. */
  added50: number;
  added99: number;
  /** CPU a call (ms). */
  cpu: number;
  rssMedian: number;
  rssPeak: number;
  errors: number;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
export const median = (values: number[]) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[(sorted.length - 1) >> 1] ?? Number.NaN);
};
const line = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** Each path's median figures over rounds (the peak RSS is the highest, the errors the sum). */
export function medianFigures(paths: Path[], all: Map<string, Figures>[]): Map<string, Figures> {
  const medians = new Map<string, Figures>();
  for (const p of paths) {
    const of = (k: keyof Figures) => median(all.map((f) => f.get(p.name)?.[k] ?? Number.NaN));
    medians.set(p.name, {
      p50: of('p50'),
      p99: of('p99'),
      added50: of('added50'),
      added99: of('added99'),
      cpu: of('cpu'),
      rssMedian: of('rssMedian'),
      rssPeak: Math.max(...all.map((f) => f.get(p.name)?.rssPeak ?? 0)),
      errors: all.reduce((sum, f) => sum + (f.get(p.name)?.errors ?? 0), 0),
    });
  }
  return medians;
}

/** The Markdown table of the paths: `direct`, the gateways, and `relay` (the floor) when it runs. */
export class FiguresTable {
  private readonly gateways: Path[];
  private readonly relay: Path | undefined;
  private readonly header: string[];

  constructor(private readonly paths: Path[]) {
    this.gateways = paths.filter((p) => p.name !== 'direct' && p.name !== 'relay');
    this.relay = paths.find((p) => p.name === 'relay');
    this.header = [
      'load (rps)',
      'mode',
      'direct p50 / p99 (ms)',
      ...paths
        .filter((p) => p.pid)
        .flatMap((p) => [
          `${p.name} added p50 / p99 (ms)`,
          `${p.name} CPU a call (ms)`,
          `${p.name} RSS median / peak (MB)`,
        ]),
      ...(this.relay ? this.gateways.map((g) => `${g.name} ÷ relay: added p50, added p99, CPU a call`) : []),
      'errors',
    ];
  }

  printHeader(): void {
    console.log(line(this.header));
    console.log(line(this.header.map(() => '---')));
  }

  printRow(rps: number, stream: boolean, f: Map<string, Figures>): void {
    const get = (name: string) => f.get(name) as Figures;
    const d = get('direct');
    const r = this.relay && get('relay');
    console.log(
      line([
        String(rps),
        stream ? 'stream, TTFT' : 'non-streamed',
        `${fmt(d.p50)} / ${fmt(d.p99)}`,
        ...this.paths
          .filter((p) => p.pid)
          .flatMap((p) => {
            const x = get(p.name);
            return [
              `${fmt(x.added50)} / ${fmt(x.added99)}`,
              fmt(x.cpu),
              `${Math.round(x.rssMedian)} / ${Math.round(x.rssPeak)}`,
            ];
          }),
        ...(r
          ? this.gateways.map((g) => {
              const x = get(g.name);
              return `${ratio(x.added50, r.added50)}, ${ratio(x.added99, r.added99)}, ${ratio(x.cpu, r.cpu)}`;
            })
          : []),
        this.paths.map((p) => `${get(p.name).errors} ${p.name}`).join(', '),
      ]),
    );
  }
}
