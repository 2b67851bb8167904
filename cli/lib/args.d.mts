export const COMMAND_NAMES: string[];
export const WORKSPACE_ID: RegExp;
export function parseCommandLine(
  argv: string[],
):
  | { kind: "help"; topic: string; status: number }
  | { kind: "unknown"; command: string }
  | { kind: "run"; command: string; args: string[] };
export function parseSshArgs(args: string[]): { target: string; command: string[] };
export function parsePortsArgs(args: string[]): { target: string; local: number; remote: number };
export function parsePortSpec(spec: string): { local: number; remote: number };
export function parseTunnelArgs(args: string[]): string;
export function parseLoginArgs(args: string[], fallback: string | undefined): string;
