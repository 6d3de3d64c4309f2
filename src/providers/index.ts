/** Public API of `providers` (barrel; owned by that area). */
export {};
