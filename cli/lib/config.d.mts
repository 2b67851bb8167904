export class CliError extends Error {
  status?: number;
  code?: string;
}
export interface CliConfig {
  url: string;
  token?: string;
}
export function configDir(): string;
export function saveConfig(values: Partial<CliConfig>): string;
export function loadConfig(options?: { needToken?: boolean }): CliConfig;
export function authHeaders(config: { token?: string }): Record<string, string>;
export function api(config: CliConfig, path: string, init?: { method?: string; body?: unknown }): Promise<unknown>;
