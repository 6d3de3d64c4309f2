/**
 * The `report` namespace of coreb's public API (`import { report } from 'coreb'`): Reports:
 * leaderboards and tables of results.json, the HTML report, MTEB export and paired significance tests
 * between retrievers.
 * @packageDocumentation
 */
export {
  COMPARE_TESTS,
  compareResults,
  holmAdjust,
  loadEvalResults,
  pairedBootstrap,
  pairedTTest,
  parseEvalResults,
  randomizationTest,
  renderAuditTable,
  renderCompareTable,
  exportMteb,
  renderHtmlReport,
  renderResults,
  writeHtmlReport,
  type CompareReport,
  type HtmlReportOptions,
  type MtebExportOptions,
  type HtmlReportOutput,
  type CompareResultsOptions,
  type CompareTest,
  type Comparison,
  type LoadedResults,
  type PairedTestResult,
  type RenderOptions,
  type ReportFormat,
} from '../report/index.js';
