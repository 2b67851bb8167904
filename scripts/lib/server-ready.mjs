// Waiting for a freshly spawned IDE (`vite dev` or `wrangler dev`) to answer.
// Ports come from freePort(), which closes what it found: until the server
// binds it, another process may (another test run's server or inspector on
// this shared machine). So only the IDE's own health answer counts as ready,
// never some other answer on that port, and a server that could not bind
// says so, for the caller to try other ports.

/** The server exited because its port was taken. */
export class PortTaken extends Error {}

/**
 * @param {string} baseUrl
 * @param {import("node:child_process").ChildProcess} server
 * @param {string[]} output the server's output so far (for the error)
 * @param {{ name: string, ms: number }} options
 */
export async function waitForIde(baseUrl, server, output, { name, ms }) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      const text = output.join("");
      const message = `${name} exited with ${server.exitCode}:\n${text}`;
      throw /already in use|EADDRINUSE/.test(text) ? new PortTaken(message) : new Error(message);
    }
    if (await answersHealth(baseUrl)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${name} did not answer within ${ms / 1000} s:\n${output.join("")}`);
}

/** Whether `/api/health` is the IDE's: 200 `{"ok":true}` (worker/index.ts). */
async function answersHealth(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/api/health`);
    if (response.status !== 200) return false;
    const body = await response.json();
    return body?.ok === true;
  } catch {
    return false;
  }
}
