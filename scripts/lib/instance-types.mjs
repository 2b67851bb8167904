// Cloudflare Containers instance types (developers.cloudflare.com/containers/
// platform/limits) and the Docker limits that give a local container the same
// memory and CPU. The instance type is `SANDBOX_INSTANCE_TYPE` in
// wrangler.jsonc, the one the Worker's start asks for.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "jsonc-parser";

/** vCPU and memory (MiB) of each predefined instance type. */
export const INSTANCE_TYPES = {
  lite: { vcpu: 1 / 16, memoryMib: 256 },
  basic: { vcpu: 1 / 4, memoryMib: 1024 },
  "standard-1": { vcpu: 1 / 2, memoryMib: 4096 },
  "standard-2": { vcpu: 1, memoryMib: 6144 },
  "standard-3": { vcpu: 2, memoryMib: 8192 },
  "standard-4": { vcpu: 4, memoryMib: 12288 },
};

/**
 * Processes a local container may run at once. Instance types name none (a
 * microVM has its kernel's own limit); a local container shares this
 * machine's, so a fork bomb in one workspace must not take the host down.
 */
export const LOCAL_PIDS_LIMIT = 4096;

/**
 * Docker HostConfig fields for an instance type: memory with no swap on top,
 * CPU time, processes. Disk is not limited (Docker's overlay2 cannot, on most hosts).
 * @param {string} instanceType
 * @returns {{ Memory: number, MemorySwap: number, NanoCpus: number, PidsLimit: number }}
 */
export function dockerLimits(instanceType) {
  const type = INSTANCE_TYPES[/** @type {keyof typeof INSTANCE_TYPES} */ (instanceType)];
  if (!type) {
    throw new Error(
      `Unknown instance type ${JSON.stringify(instanceType)}: use one of ${Object.keys(INSTANCE_TYPES).join(", ")}.`,
    );
  }
  const memory = type.memoryMib * 1024 * 1024;
  return { Memory: memory, MemorySwap: memory, NanoCpus: Math.round(type.vcpu * 1e9), PidsLimit: LOCAL_PIDS_LIMIT };
}

/**
 * The instance type wrangler.jsonc gives the sandbox (`vars.SANDBOX_INSTANCE_TYPE`).
 * @param {string} root the project's directory
 */
export function configuredInstanceType(root) {
  const config = parse(readFileSync(join(root, "wrangler.jsonc"), "utf8"));
  const value = config?.vars?.SANDBOX_INSTANCE_TYPE;
  if (typeof value !== "string") throw new Error("wrangler.jsonc has no vars.SANDBOX_INSTANCE_TYPE");
  return value;
}
