/** Public API of `bench` (barrel; owned by that area). */
export {};
