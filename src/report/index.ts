/** Public API of `report`: human-readable renderings of `coreb eval` results (text and markdown tables). */
export * from './render-results.js';
