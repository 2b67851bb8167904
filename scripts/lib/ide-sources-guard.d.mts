import type { IncomingMessage } from "node:http";
import type { Plugin } from "vite";
export function sourceRequestKind(
  url: string,
  fileOf: (path: string) => "public" | "checkout" | undefined,
): "pass" | "refuse" | "graph";
export function graphKeys(url: string): string[];
export function ideSourcesGuard(options?: { skip?: (req: IncomingMessage) => boolean }): Plugin;
