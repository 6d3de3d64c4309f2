/** Public API of `dataset` (barrel; owned by that area). */
export {};
