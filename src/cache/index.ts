/** Public API of `cache` (barrel; owned by that area). */
export {};
