import type { CliConfig } from "./config.mjs";
export function keyPath(): string;
export function ensureKeyPair(): string;
export function registerKey(config: CliConfig): Promise<string>;
export function shellQuote(text: string): string;
export function proxyCommand(workspaceId: string, paths?: { node?: string; script?: string }): string;
export function configPath(path: string): string;
export function hostAlias(workspaceId: string): string;
export function sshOptions(
  workspaceId: string,
  key: string,
  where?: { dir?: string; node?: string; script?: string },
): string[];
