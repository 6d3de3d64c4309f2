/** Public API of `report`: renderings of `coreb eval` results (text, markdown, HTML) and the significance tests of `coreb compare`. */
export * from './render-results.js';
export * from '../dataset/results-file.js';
export * from './significance.js';
export * from './compare.js';
export * from './render-audit.js';
export * from './render-drift.js';
export * from './rank-correlation.js';
export * from './charts.js';
export * from './html-report.js';
export * from './mteb-export.js';
export * from './contamination.js';
export { explainGroups, groupResults, type ReleaseGroup } from './result-groups.js';
