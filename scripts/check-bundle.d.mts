export const TEST_HOOK_MARKERS: string[];
/** What is missing from a build in `dist` (the Worker, the app); empty when it is whole. */
export function missingFromBundle(dist: string): string[];
/** Files of `dist` that hold a test hook's name, as "file: marker". */
export function findTestHooks(dist: string): string[];
