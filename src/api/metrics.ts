/**
 * The `metrics` namespace of coreb's public API (`import { metrics } from 'coreb'`): trec_eval 9.0.8 /
 * pytrec_eval-exact measures over qrels and runs, row by row or columnar.
 * @packageDocumentation
 */
export {
  MEASURE_FAMILIES,
  TREC_DEFAULT_CUTOFFS,
  createColumns,
  evaluate,
  evaluateColumns,
  QueryEvaluator,
  measureKey,
  measureKeys,
  measureLabel,
  parseMeasures,
  renderTrec,
  measurePreset,
  toEvaluation,
  type ColumnarEvaluation,
  type ColumnarOptions,
  type EvaluateOptions,
  type Evaluation,
  type EvaluationColumn,
  type MeasureFamilyName,
  type MeasureSemantics,
  type MeasureSpec,
  type NdcgMode,
  type RenderTrecOptions,
  type ScorePrecision,
} from '../metrics/index.js';
export type { QrelsColumns, RunColumns } from '../core/columns.js';
