export const ROOT: string;
export function setup(): Promise<NodeJS.ProcessEnv>;
export function ensureChromium(): Promise<string>;
export function ensurePyflakes(): Promise<string>;
export function failSetup(error: unknown): never;
