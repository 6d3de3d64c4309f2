/** Public API of `metrics` (barrel; owned by that area). */
export {};
