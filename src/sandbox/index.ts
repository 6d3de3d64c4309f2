/** Public API of `sandbox` (barrel; owned by that area). */
export {};
