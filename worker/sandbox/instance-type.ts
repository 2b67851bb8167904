/**
 * The instance type each sandbox starts on (`SANDBOX_INSTANCE_TYPE` in
 * wrangler.jsonc): vCPU, memory and disk on Cloudflare. Locally, the dev
 * server gives containers the same memory and CPU (scripts/lib/instance-types.mjs).
 */
const INSTANCE_TYPES = ["lite", "basic", "standard-1", "standard-2", "standard-3", "standard-4"] as const;

export type InstanceType = (typeof INSTANCE_TYPES)[number];

/** The configured instance type; a name the platform does not know fails the start with the ones it does. */
export function sandboxInstanceType(value: string | undefined): InstanceType {
  const known = INSTANCE_TYPES.find((name) => name === value);
  if (!known) {
    throw new Error(`SANDBOX_INSTANCE_TYPE is ${JSON.stringify(value)}: use one of ${INSTANCE_TYPES.join(", ")}`);
  }
  return known;
}
