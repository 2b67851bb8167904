export interface UnittestResult {
  finished: boolean;
  passed: number;
  failed: number;
  skipped: number;
  failedTests: string[];
}
export function pythonFiles(): string[];
export function parseUnittest(output: string): UnittestResult;
export function pythonTests(env: NodeJS.ProcessEnv): Promise<UnittestResult>;
