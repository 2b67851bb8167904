// The engine proxy (engine-proxy.mjs: workerd's way to Docker, the egress
// gate, the Worker's outbound proxy) on a thread of its own, for the test and
// benchmark runs that host it in their own process. Their code waits on
// children synchronously (execFileSync("docker", ["exec", ..., "curl", ...])):
// on the same event loop, the proxy could not answer while they wait, so a
// request a workspace makes through the interception stalled until the wait
// ended (issue 45's "two hangs": the network bench's curl, the lifecycle
// bench's npm install). On a thread, nothing the caller does blocks it.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const ROLE = "cloud-ide-engine-proxy";

/**
 * startEngineProxy's options and answer, with the proxy on its own thread.
 * @param {Omit<Parameters<typeof import("./engine-proxy.mjs").startEngineProxy>[0], "log"> & { log?: (message: string) => void }} options
 * @returns {Promise<{ dockerHost: string, workerVars: Record<string, string>, close: () => Promise<void> }>}
 */
export function startEngineProxyThread({ log = () => {}, ...options }) {
  const thread = new Worker(new URL(import.meta.url), { workerData: { role: ROLE, options } });
  /** @type {(() => void) | undefined} */
  let onClosed;
  return new Promise((resolve, reject) => {
    thread.on("message", (message) => {
      if (message.type === "log") log(message.message);
      else if (message.type === "ready") {
        resolve({
          dockerHost: message.dockerHost,
          workerVars: message.workerVars,
          close: () =>
            new Promise((done) => {
              onClosed = done;
              thread.postMessage({ type: "close" });
            }),
        });
      } else if (message.type === "failed") reject(new Error(message.message));
      else if (message.type === "closed") void thread.terminate().then(() => onClosed?.());
    });
    thread.on("error", (error) => {
      reject(error);
      log(`engine proxy thread: ${error.message}`);
    });
    thread.on("exit", () => onClosed?.());
  });
}

if (!isMainThread && workerData?.role === ROLE && parentPort) {
  const port = parentPort;
  const { startEngineProxy } = await import("./engine-proxy.mjs");
  try {
    const proxy = await startEngineProxy({
      ...workerData.options,
      log: (/** @type {string} */ message) => port.postMessage({ type: "log", message }),
    });
    port.on("message", async (message) => {
      if (message.type !== "close") return;
      await proxy.close().catch(() => {});
      port.postMessage({ type: "closed" });
    });
    port.postMessage({ type: "ready", dockerHost: proxy.dockerHost, workerVars: proxy.workerVars });
  } catch (error) {
    port.postMessage({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
}
