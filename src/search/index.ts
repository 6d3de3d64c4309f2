/** Public API of `search` (barrel; owned by that area). */
export {};
