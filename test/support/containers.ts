import { execFileSync } from "node:child_process";
import { networkInterfaces } from "node:os";
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

/** A Docker command's output, trimmed (a view of the engine from outside the IDE). */
export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8" }).trim();
}

/** This machine's address on its own network (not loopback, not Docker's bridge). */
export function machineAddress(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (name.startsWith("docker") || name.startsWith("veth") || name.startsWith("br-")) continue;
    const ipv4 = addresses?.find((a) => a.family === "IPv4" && !a.internal);
    if (ipv4) return ipv4.address;
  }
  throw new Error("this machine has no address outside loopback and Docker");
}
