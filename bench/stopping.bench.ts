/**
 * `npm run bench -- stopping`: how often the comparison's stopping rule (src/core/comparison/stopping-rule.ts) stops
 * wrongly, and how many rounds it needs, on seeded synthetic routes: two identical routes (an A/A comparison, where
 * "clear" is always wrong) and routes 1.3x apart (where "clear" is right), at moderate and heavy noise. Beside the
 * rule (planned looks, each at 1 - 0.05 / looks) it runs, on the same samples, what the rule replaced: a 95% interval
 * read after every round from the minimum on, stopping at the first decision. No timing is measured, only counts.
 */
import {
  decide,
  DEFAULT_STOPPING_RULE,
  StoppingTracker,
  type StoppingRule,
} from '../src/core/comparison/stopping-rule.ts';
import { bootstrapRatioOfMedians } from '../src/core/stats/intervals.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';

const RUNS = Number(process.env.DRB_BENCH_STOPPING_RUNS ?? 200);
const rule: StoppingRule = {
  ...DEFAULT_STOPPING_RULE,
  min_rounds: 6,
  max_rounds: 120,
  max_time_ms: null,
  tie_zone: 0.1,
};

/** Route samples: log-normal noise of `sd` per run, a shared per-round load of up to 1.5x, and spikes of up to 4x. */
function routes(seed: number, speed: number, sd: number, spikes: number): [number[], number[]] {
  const random = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const run = (load: number, f: number) =>
    20 * f * load * Math.exp(sd * gauss()) * (random() < spikes ? 1 + 3 * random() : 1);
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < rule.max_rounds; k++) {
    const load = 1 + 0.5 * random();
    a.push(run(load, 1));
    b.push(run(load, speed));
  }
  return [a, b];
}

type Outcome = { reason: string; rounds: number };

function withRule(a: number[], b: number[]): Outcome {
  const tracker = new StoppingTracker(rule, 'a');
  for (let k = 1; ; k++) {
    const stop = tracker.afterRound(
      [
        { id: 'a', samples_ms: a.slice(0, k) },
        { id: 'b', samples_ms: b.slice(0, k) },
      ],
      0,
    );
    if (stop !== null) return { reason: stop.reason, rounds: k };
  }
}

function everyRound(a: number[], b: number[]): Outcome {
  for (let k = rule.min_rounds; k <= rule.max_rounds; k++) {
    const d = decide(bootstrapRatioOfMedians(a.slice(0, k), b.slice(0, k), { paired: true })!.interval, rule);
    if (d !== 'open') return { reason: d, rounds: k };
  }
  return { reason: 'budget-spent', rounds: rule.max_rounds };
}

console.log(`| Routes | Noise | Rule | clear | tie | budget spent | Mean rounds (${RUNS} seeded runs) |`);
console.log('| --- | --- | --- | ---: | ---: | ---: | ---: |');
for (const [label, speed] of [
  ['identical (A/A)', 1],
  ['1.3x apart', 1.3],
] as const) {
  for (const [noise, sd, spikes] of [
    ['moderate', 0.1, 0.05],
    ['heavy', 0.25, 0.2],
  ] as const) {
    const tallies = [withRule, everyRound].map(() => new Map<string, number>());
    const rounds = [0, 0];
    for (let seed = 1; seed <= RUNS; seed++) {
      const [a, b] = routes(seed * 7919, speed, sd, spikes);
      [withRule, everyRound].forEach((f, i) => {
        const o = f(a, b);
        tallies[i].set(o.reason, (tallies[i].get(o.reason) ?? 0) + 1);
        rounds[i] += o.rounds;
      });
    }
    ['planned looks, 1 - 0.05 / looks', '95% after every round'].forEach((name, i) => {
      const pct = (r: string) => `${(((tallies[i].get(r) ?? 0) / RUNS) * 100).toFixed(1)}%`;
      console.log(
        `| ${label} | ${noise} | ${name} | ${pct('clear')} | ${pct('tie')} | ${pct('budget-spent')} | ${(rounds[i] / RUNS).toFixed(1)} |`,
      );
    });
  }
}
