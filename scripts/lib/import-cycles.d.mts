export function importCycles(options: {
  paths: string[];
  tsConfig?: string;
  folders?: string;
  baseDir?: string;
}): Promise<{ modules: number; cycles: string[][] }>;
export function folderCycles(modules: Record<string, string[]>, root: string): string[][];
