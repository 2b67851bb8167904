import { execFileSync } from "node:child_process";
import { inject } from "vitest";

/** Names of the app containers (not sidecars) this test run started. */
export function runContainers(): string[] {
  return execFileSync("docker", ["ps", "--format", "{{.Names}}", "--filter", `name=workerd-${inject("workerName")}-`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((name) => name && !name.endsWith("-proxy"));
}

/** Runs a command in a container with `docker exec` (a view from outside the IDE). */
export function dockerExec(container: string, command: string[]): string {
  return execFileSync("docker", ["exec", container, ...command], { encoding: "utf8" }).trim();
}
