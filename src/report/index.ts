/** Public API of `report` (barrel; owned by that area). */
export {};
