/**
 * Release shapes: the rules that decide which queries a release has and how they are judged. The
 * official shape follows the maintainers' construction code (repository `hq-bench/coreb`,
 * `coreb_runner/runners/query_corpus_dataset_maker.py`): per-subtask caps on search queries, three
 * code-to-code subtasks with a primary and a second model, three near-miss texts per code-to-text
 * query, and hard negatives sampled from tiers. coreb-mini keeps its own, fully deterministic rules.
 */
import { CorebError } from '../core/errors.js';

/** The code-to-code subtasks a shape can build (`c2c_<name>`), in the order the official maker builds them. */
export const CODE2CODE_SUBTASKS = ['mono_lang', 'cross_lang', 'cross_model'] as const;
/** A code-to-code subtask name without its `c2c_` prefix. */
export type Code2CodeSubtask = (typeof CODE2CODE_SUBTASKS)[number];

/** What a release shape decides. */
export interface ReleaseShape {
  /** Name recorded in the manifest (`coreb-v202603`; `custom:<base>` once an option changed it). */
  name: string;
  /**
   * `official`: the maintainers' rules (see docs/build.md, "Release shape"); `mini`: coreb-mini's
   * rules (every anchor, every search query, four near-miss texts, hard negatives in id order).
   */
  rules: 'official' | 'mini';
  /** Most `t2c_search_<variant>` queries per subtask, a seeded sample when there are more; `null` keeps all. Official: 50. */
  searchCap: number | null;
  /** Code-to-code subtasks built, in this order. Official: all three. */
  code2code: readonly Code2CodeSubtask[];
  /** Language of the second model's anchors in `c2c_mono_lang` and `c2c_cross_model`; official `python`. */
  anchorLanguage: string;
  /** Near-miss texts (relevance 1) judged per code-to-text query, a seeded sample of the problem's four; official 3. */
  c2tHardTexts: number;
  /**
   * Where the near-miss texts of a code-to-text query come from: `own`, the problem's own four
   * (v202603); `other-problems`, a seeded sample of other problems' near-miss texts, as v202602 was
   * published (its maker's first tier found none, so its fallback drew from other problems).
   */
  c2tNearMissFrom: 'own' | 'corpus';
  /** Whether `c2t_match` pairs are made (both official releases have them). */
  c2tMatch: boolean;
  /**
   * The first tier of code hard negatives: `constraint`, the failed programs that fit the
   * subtask's own constraint (v202603's maker); `failed`, every failed program of the problem (as
   * v202602 was published). Both then fall back to the correct programs that are not positives.
   */
  hardNegativeFirstTier: 'constraint' | 'failed';
  /** Hard negatives (relevance 1) per code query; 3 in every shape. */
  maxHardNegatives: number;
}

const OFFICIAL: Omit<ReleaseShape, 'name'> = {
  rules: 'official',
  searchCap: 50,
  code2code: CODE2CODE_SUBTASKS,
  anchorLanguage: 'python',
  c2tHardTexts: 3,
  c2tNearMissFrom: 'own',
  c2tMatch: true,
  hardNegativeFirstTier: 'constraint',
  maxHardNegatives: 3,
};

/**
 * The named shapes. `coreb-v202603` (the default of `coreb build`) is the current official one;
 * `coreb-v202602` reproduces v202602 as published: `c2c_cross_lang` only, near-miss texts
 * from the whole corpus, every failed program in the first hard-negative tier;
 * `coreb-mini` is the bundled sample's.
 */
export const RELEASE_SHAPES: Readonly<Record<string, ReleaseShape>> = {
  'coreb-v202603': { name: 'coreb-v202603', ...OFFICIAL },
  'coreb-v202602': {
    name: 'coreb-v202602',
    ...OFFICIAL,
    code2code: ['cross_lang'],
    c2tNearMissFrom: 'corpus',
    hardNegativeFirstTier: 'failed',
  },
  'coreb-mini': {
    name: 'coreb-mini',
    rules: 'mini',
    searchCap: null,
    code2code: ['cross_lang'],
    anchorLanguage: 'python',
    c2tHardTexts: 4,
    c2tNearMissFrom: 'own',
    c2tMatch: true,
    hardNegativeFirstTier: 'failed',
    maxHardNegatives: 3,
  },
};

/** The shape `coreb build` makes unless told otherwise. */
export const DEFAULT_BUILD_SHAPE = 'coreb-v202603';

/** Changes to a named shape (`--search-cap`, `--c2c-subtasks`, `--max-hard-negatives`, `--c2t-hard-texts`). */
export type ShapeOverrides = Partial<Pick<ReleaseShape, 'searchCap' | 'code2code' | 'c2tHardTexts' | 'maxHardNegatives' | 'c2tMatch'>>;

/**
 * Resolves a shape by name (default {@link DEFAULT_BUILD_SHAPE}) with overrides; a changed shape is
 * named `custom:<base>` so no release claims the official shape it does not have.
 * @throws CorebError `USAGE` for an unknown name, an unknown code-to-code subtask or a negative count.
 */
export function resolveReleaseShape(name: string = DEFAULT_BUILD_SHAPE, overrides: ShapeOverrides = {}): ReleaseShape {
  const base = RELEASE_SHAPES[name];
  if (base === undefined) {
    throw new CorebError('USAGE', `unknown release shape '${name}'; expected one of ${Object.keys(RELEASE_SHAPES).join(', ')}`);
  }
  for (const s of overrides.code2code ?? []) {
    if (!(CODE2CODE_SUBTASKS as readonly string[]).includes(s)) {
      throw new CorebError('USAGE', `unknown code-to-code subtask '${s}'; expected some of ${CODE2CODE_SUBTASKS.join(', ')}`);
    }
  }
  for (const [k, v] of [
    ['searchCap', overrides.searchCap],
    ['c2tHardTexts', overrides.c2tHardTexts],
    ['maxHardNegatives', overrides.maxHardNegatives],
  ] as const) {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) {
      throw new CorebError('USAGE', `${k} must be a whole number >= 0, got ${v}`);
    }
  }
  const shape: ReleaseShape = { ...base };
  let changed = false;
  for (const [k, v] of Object.entries(overrides) as Array<[keyof ShapeOverrides, unknown]>) {
    if (v === undefined) continue;
    const next = k === 'code2code' ? CODE2CODE_SUBTASKS.filter((s) => (v as string[]).includes(s)) : v;
    if (JSON.stringify(next) !== JSON.stringify(shape[k])) changed = true;
    (shape as unknown as Record<string, unknown>)[k] = next;
  }
  if (changed) shape.name = `custom:${base.name}`;
  return shape;
}

/** The models of a shaped release by role: `primary` (model A) and `secondary` (model B), as corpus `model` names. */
export interface ShapeRoles {
  primary: string;
  secondary?: string;
}
