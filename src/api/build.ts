/**
 * The `build` namespace of coreb's public API (`import { build } from 'coreb'`): Building releases:
 * the CoREB qrels rules from judged candidates.
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_HARD_NEGATIVES,
  createCode2CodeQrels,
  createCode2TextQrels,
  createText2CodeQrels,
  resolveCrossLanguageTargets,
  type CodeQrelsOptions,
  type JudgedCandidate,
} from '../construct/index.js';
