// Written by scripts/write-versions.ts from package.json (`pnpm write-versions`); do not edit.

/** The package version (its package.json's, written into the source by `pnpm write-versions`). */
export const VERSION: string = "0.0.0";
