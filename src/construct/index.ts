/** Public API of `construct` (barrel; owned by that area). */
export {};
