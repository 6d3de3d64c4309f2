/** Public API of `train`: reranker training data (mining, export, the published dataset) and LoRA soups. */
export * from './soup.js';
export * from './mine.js';
export * from './export.js';
