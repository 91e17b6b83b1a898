/**
 * The run plan of a generation run: one untimed warm-up, then every measured prompt in the versioned order, once
 * per repetition. Each repetition carries its declared seed when the engine can seed its sampler; otherwise the
 * plan says "no seed control" and the seeds are not passed (they would be a claim the engine cannot honour).
 */
import type { PromptSet } from './prompt-set.ts';

/** The seeds of the reference protocol's three repetitions (posa-bench-methodology: 17, 29, 41). */
export const DECLARED_SEEDS: readonly number[] = Object.freeze([17, 29, 41]);

/** `seeded`: the engine received each repetition's seed; `no-seed-control`: the engine cannot take one. */
export type SeedControl = 'seeded' | 'no-seed-control';

/** One step the runner executes, in order. `seed` is null when the engine has no seed control. */
export interface GenerationStep {
  kind: 'warmup' | 'measured';
  prompt_id: string;
  /** 1-based repetition number; null for the warm-up. */
  repetition: number | null;
  /** 0-based position of the prompt in the set; null for the warm-up. */
  prompt_index: number | null;
  seed: number | null;
}

/** The plan as recorded in the generation receipt. */
export interface GenerationPlan {
  prompt_set_id: string;
  prompt_set_version: number;
  repetitions: number;
  seed_control: SeedControl;
  /** The seed of each repetition (index 0 = repetition 1); null with no seed control. */
  seeds: number[] | null;
  max_new_tokens: number;
  /** True when the run used a token limit other than the prompt set's (recorded, never silent). */
  max_new_tokens_overridden: boolean;
  temperature: number;
  warmup_prompt_id: string;
  steps: GenerationStep[];
}

/**
 * Builds the plan.
 * @param promptSet the parsed prompt set (its order is the measured order)
 * @param repetitions how many times every measured prompt runs (1 to the number of declared seeds)
 * @param engineSupportsSeed whether the engine takes a sampling seed (`seedControl` in src/core/engines/engine-capabilities.ts)
 * @param seeds the declared seeds, one per repetition (defaults to 17, 29, 41)
 * @param maxNewTokensOverride a token limit replacing the set's (slow devices, smoke tests); null = the set's
 * @param temperatureOverride a sampling temperature replacing the set's (0 = greedy: a user's own model generates
 *   greedily); null = the set's. The plan's `temperature` is the one that ran either way.
 */
export function buildGenerationPlan(
  promptSet: PromptSet,
  repetitions: number,
  engineSupportsSeed: boolean,
  seeds: readonly number[] = DECLARED_SEEDS,
  maxNewTokensOverride: number | null = null,
  temperatureOverride: number | null = null,
): GenerationPlan {
  if (temperatureOverride !== null && !(Number.isFinite(temperatureOverride) && temperatureOverride >= 0)) {
    throw new RangeError(`the temperature must be a finite number >= 0, got ${temperatureOverride}`);
  }
  if (maxNewTokensOverride !== null && (!Number.isInteger(maxNewTokensOverride) || maxNewTokensOverride < 1)) {
    throw new RangeError(`max new tokens must be a positive integer, got ${maxNewTokensOverride}`);
  }
  if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > seeds.length) {
    throw new RangeError(
      `repetitions must be an integer from 1 to ${seeds.length} (one declared seed each), got ${repetitions}`,
    );
  }
  const used = seeds.slice(0, repetitions);
  const seedFor = (repetition: number) => (engineSupportsSeed ? used[repetition - 1] : null);
  const steps: GenerationStep[] = [
    // The warm-up uses the first repetition's seed so that it exercises the same sampler path.
    { kind: 'warmup', prompt_id: promptSet.warmup.id, repetition: null, prompt_index: null, seed: seedFor(1) },
  ];
  for (let repetition = 1; repetition <= repetitions; repetition++) {
    promptSet.prompts.forEach((prompt, index) => {
      steps.push({
        kind: 'measured',
        prompt_id: prompt.id,
        repetition,
        prompt_index: index,
        seed: seedFor(repetition),
      });
    });
  }
  return {
    prompt_set_id: promptSet.id,
    prompt_set_version: promptSet.version,
    repetitions,
    seed_control: engineSupportsSeed ? 'seeded' : 'no-seed-control',
    seeds: engineSupportsSeed ? [...used] : null,
    max_new_tokens: maxNewTokensOverride ?? promptSet.controls.max_new_tokens,
    max_new_tokens_overridden:
      maxNewTokensOverride !== null && maxNewTokensOverride !== promptSet.controls.max_new_tokens,
    temperature: temperatureOverride ?? promptSet.controls.temperature,
    warmup_prompt_id: promptSet.warmup.id,
    steps,
  };
}
