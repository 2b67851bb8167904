// The network policy's cost and reach. (1) An allowed HTTPS request through
// the interception (container → sidecar, TLS re-signed → workerd → the
// Outbound entrypoint, which asks the Durable Object → fetch) against the
// same request from a workspace in the open mode (the Internet on, nothing
// intercepted), both to the npm registry, in the same run, alternating
// batches: once with a new connection per request (a curl each), once over
// one connection. (2) How soon a policy change is in force: a loop of
// requests in the container while the allow list changes, timed from the
// PUT to the first request answered the new way (to a host under
// egress.test, which the test Worker answers itself), next to the PUT alone.
import { execFileSync, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Network policy: interception overhead and policy changes";

const URL_ = "https://registry.npmjs.org/-/ping";
const ROUNDS = 4;
const PER_ROUND = 10;
const CHANGES = 4;

const quantile = (values, q) => percentile(values, q * 100);

/** Seconds → ms for each request: `fresh` runs one curl per request, else one curl for all of them. */
function timeRequests(container, count, fresh) {
  const args = fresh
    ? [
        "sh",
        "-c",
        `for i in $(seq ${count}); do curl -sS -o /dev/null -w '%{http_code} %{time_total}\\n' ${URL_}; done`,
      ]
    : ["curl", "-sS", "-w", "%{http_code} %{time_total}\\n", ...Array(count).fill(["-o", "/dev/null", URL_]).flat()];
  const out = execFileSync("docker", ["exec", container, ...args], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .map((line) => {
      const [code, seconds] = line.split(" ");
      if (code !== "200") throw new Error(`${container}: the registry answered ${line}`);
      return Number(seconds) * 1000;
    });
}

async function workspace(session, name, policy) {
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name } });
  if (policy) await session.json(`/api/workspaces/${id}/network`, { method: "PUT", body: policy });
  const status = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
  if (status.state !== "running") throw new Error(`workspace did not start: ${JSON.stringify(status)}`);
  return { id, container: await findContainer(session, id) };
}

/**
 * Requests in a loop in the container; `change()` at a moment it chose;
 * resolves with the ms from the change to the first request answered `expect`.
 */
async function timeChange(container, change, expect) {
  const loop = spawn("docker", [
    "exec",
    container,
    "sh",
    "-c",
    "end=$(($(date +%s%3N)+15000)); while [ $(date +%s%3N) -lt $end ]; do c=$(curl -s -o /dev/null -w '%{http_code}' https://bench.egress.test/); echo \"$(date +%s%3N) $c\"; done",
  ]);
  let buffer = "";
  let changedAt = 0;
  let requests = 0;
  try {
    return await new Promise((resolve, reject) => {
      loop.on("exit", () => reject(new Error(`the change was not seen within 15 s (${requests} requests)`)));
      loop.stdout.on("data", (chunk) => {
        buffer += chunk;
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) {
          requests++;
          const [at, code] = line.split(" ");
          if (!changedAt && requests >= 3) {
            changedAt = Date.now();
            change().catch(reject);
          } else if (changedAt && code === expect && Number(at) >= changedAt) {
            resolve(Number(at) - changedAt);
          }
        }
      });
    });
  } finally {
    loop.kill();
  }
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const made = [];
  try {
    const listed = await workspace(session, "bench network allowlist", {
      mode: "allowlist",
      allow: ["registry.npmjs.org", "*.egress.test"],
    });
    made.push(listed.id);
    const open = await workspace(session, "bench network open", { mode: "open", allow: [] });
    made.push(open.id);

    const rows = [];
    for (const fresh of [true, false]) {
      const ours = [];
      const reference = [];
      // A first request each, not counted: DNS, the sidecar's leaf certificate, workerd's connection.
      timeRequests(listed.container, 1, true);
      timeRequests(open.container, 1, true);
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(...timeRequests(listed.container, PER_ROUND, fresh));
        reference.push(...timeRequests(open.container, PER_ROUND, fresh));
      }
      const what = fresh ? "a new connection each" : "one connection";
      for (const [q, label] of [
        [0.5, "p50"],
        [0.95, "p95"],
      ]) {
        rows.push({
          metric: `HTTPS GET to the npm registry, ${what}, ${label} (${ours.length} each)`,
          ours: quantile(ours, q),
          reference: quantile(reference, q),
          referenceName: "open mode, not intercepted",
          unit: "ms",
          ...(label === "p50" ? { target: "< reference + 20 ms" } : {}),
        });
      }
    }

    const network = `/api/workspaces/${listed.id}/network`;
    const putTimes = [];
    const put = async (allow) => {
      const start = performance.now();
      await session.json(network, { method: "PUT", body: { mode: "allowlist", allow } });
      putTimes.push(performance.now() - start);
    };
    const inForce = [];
    for (let i = 0; i < CHANGES; i++) {
      inForce.push(await timeChange(listed.container, () => put(["registry.npmjs.org"]), "403"));
      inForce.push(await timeChange(listed.container, () => put(["registry.npmjs.org", "*.egress.test"]), "200"));
    }
    rows.push(
      {
        metric: `policy change to the first request answered the new way, p50 of ${inForce.length}`,
        ours: quantile(inForce, 0.5),
        reference: quantile(putTimes, 0.5),
        referenceName: "the PUT alone",
        unit: "ms",
      },
      {
        metric: `policy change to the first request answered the new way, max of ${inForce.length}`,
        ours: Math.max(...inForce),
        reference: Math.max(...putTimes),
        referenceName: "the PUT alone",
        unit: "ms",
        target: "< 1000 ms",
      },
    );
    return rows;
  } finally {
    for (const id of made) await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
}
