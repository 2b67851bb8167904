/**
 * A workspace's network policy and secrets (issue 13), through the real
 * Worker, workerd, Docker and the local network sidecar. The only outside
 * host these tests reach is the npm registry; secrets go to hosts under
 * egress.test, which the test Worker answers itself
 * (worker/testing/egress-test-handler.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EgressLog, EgressLogEntry, NetworkSettings, SecretInfo } from "../../protocol/network";
import { api } from "../support/api";
import { containerId, removeWhatWeMade, sh, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";
import { openTerminalSocket, type TerminalSocket } from "../support/terminal-client";
import { accessUser } from "../support/users";

const REGISTRY = "registry.npmjs.org";

/** As the owner (test/support/api.ts explains why no request needs a second try). */
const owner = ownerApi;

async function send(path: string, method: string, body?: unknown): Promise<Response> {
  return owner(path, {
    method,
    ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  });
}

async function setPolicy(id: string, body: object): Promise<NetworkSettings> {
  const response = await send(`/api/workspaces/${id}/network`, "PUT", body);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as NetworkSettings;
}

async function networkLog(id: string): Promise<EgressLog> {
  const response = await owner(`/api/workspaces/${id}/network/log`);
  expect(response.status).toBe(200);
  return (await response.json()) as EgressLog;
}

/** Waits for a log entry like `entry`: the entrypoint reports each request as its answer goes out. */
async function logged(id: string, entry: Partial<EgressLogEntry>): Promise<EgressLogEntry> {
  let found: EgressLogEntry | undefined;
  await expect
    .poll(
      async () => {
        const log = await networkLog(id);
        found = log.entries.findLast((e) =>
          Object.entries(entry).every(([k, v]) => isDeepStrictEqual(e[k as keyof EgressLogEntry], v)),
        );
        return found !== undefined;
      },
      { timeout: 10_000, interval: 200 },
    )
    .toBe(true);
  return found as EgressLogEntry;
}

/** Runs a shell line in the terminal; its output (stdout and stderr) and exit status, read from a file. */
function terminalRunner(term: () => TerminalSocket, container: () => string) {
  return async (command: string): Promise<{ output: string; status: number }> => {
    const n = Math.floor(Math.random() * 1e9);
    const file = `/tmp/out-${n}`;
    term().type(`(${command}) > ${file} 2>&1; echo "rc=$?" >> ${file}; echo "done-$((${n}+1))"\r`);
    await term().waitFor(new RegExp(`done-${n + 1}`), 60_000);
    const text = sh(container(), `cat ${file}`);
    const status = Number(/rc=(\d+)\s*$/.exec(text)?.[1] ?? "-1");
    return { output: text.replace(/rc=\d+\s*$/, "").trim(), status };
  };
}

const NPM_VIEW = "timeout 60 npm view react version --prefer-online";

describe("the allow list, enforced per request", () => {
  let id: string;
  let container: string;
  let term: TerminalSocket;
  const run = terminalRunner(
    () => term,
    () => container,
  );

  beforeAll(async () => {
    id = await createWorkspace("network policy");
    container = (await wake(id)).container;
    term = await openTerminalSocket(id, "net");
  });

  afterAll(() => {
    term?.ws.close();
    removeWhatWeMade();
  });

  it("starts a new workspace in allowlist mode with the package registries", async () => {
    const response = await owner(`/api/workspaces/${id}/network`);
    expect(response.status).toBe(200);
    const settings = (await response.json()) as NetworkSettings;
    expect(settings).toMatchObject({ mode: "allowlist", containerMode: "allowlist", secrets: [] });
    expect(settings.allow).toEqual(
      expect.arrayContaining([REGISTRY, "pypi.org", "files.pythonhosted.org", "github.com", "deb.debian.org"]),
    );
  });

  it("lets npm reach the registry; removed from the list it gets the IDE's 403, logged as blocked; added back it works, same container", async () => {
    const dockerId = containerId(container);
    const listed = await setPolicy(id, { mode: "allowlist", allow: [REGISTRY] });
    const allowed = await run(NPM_VIEW);
    expect(allowed, allowed.output).toMatchObject({ status: 0 });
    expect(allowed.output).toMatch(/^\d+\.\d+\.\d+/m);
    expect((await networkLog(id)).intercepting).toBe(true);
    await logged(id, { host: REGISTRY, scheme: "https", verdict: "allowed", status: 200 });

    await setPolicy(id, { mode: "allowlist", allow: ["pypi.org"] });
    const blocked = await run(NPM_VIEW);
    expect(blocked.status).not.toBe(0);
    expect(blocked.output).toContain("403");
    expect(blocked.output).toContain(`${REGISTRY} is not on this workspace's allow list`);
    await logged(id, { host: REGISTRY, verdict: "blocked", status: 403, method: "GET" });

    await setPolicy(id, listed);
    const again = await run(NPM_VIEW);
    expect(again, again.output).toMatchObject({ status: 0 });
    // No restart: the same container answered all three.
    expect(containerId(container)).toBe(dockerId);
    expect((await owner(`/api/workspaces/${id}/network`).then((r) => r.json())) as NetworkSettings).toMatchObject({
      containerMode: "allowlist",
    });
  });

  it("off blocks the registry too, without a restart", async () => {
    await setPolicy(id, { mode: "off", allow: [REGISTRY] });
    const off = await run(NPM_VIEW);
    expect(off.status).not.toBe(0);
    expect(off.output).toContain("this workspace's network is off");
    await setPolicy(id, { mode: "allowlist", allow: [REGISTRY] });
  });

  it("trusts the interception CA for curl, git, Node and Python without options", async () => {
    await setPolicy(id, { mode: "allowlist", allow: [REGISTRY, "*.egress.test"] });
    const curl = await run("curl -sS -o /dev/null -w '%{http_code}' https://registry.npmjs.org/react");
    expect(curl.output).toBe("200");
    const node = await run(
      `node -e "fetch('https://ca.egress.test/node').then(r => r.json()).then(j => console.log(j.handledBy))"`,
    );
    expect(node.output).toBe("TestOutbound");
    const python = await run(
      `python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('https://ca.egress.test/py'))['handledBy'])"`,
    );
    expect(python.output).toBe("TestOutbound");
    // git speaks to the test host over HTTPS: the answer is not a repository, but TLS held.
    const git = await run("git ls-remote https://git.egress.test/repo.git");
    expect(git.output).not.toMatch(/certificate|SSL/i);
    expect(sh(container, "cat /etc/cloud-ide/egress-ca.crt")).toContain("BEGIN CERTIFICATE");
  });

  it("adds a secret to HTTPS requests to its hosts only, and it is nowhere in the container", async () => {
    const token = `tok-${randomBytes(12).toString("hex")}`;
    const value = `Bearer ${token}`;
    const put = await send(`/api/workspaces/${id}/network/secrets/api-token`, "PUT", {
      value,
      hosts: ["secret.egress.test"],
      header: "Authorization",
    });
    expect(put.status).toBe(200);
    const info = (await put.json()) as SecretInfo;
    expect(info).toMatchObject({ name: "api-token", hosts: ["secret.egress.test"], header: "Authorization" });
    expect(JSON.stringify(info)).not.toContain(token);
    const listed = await owner(`/api/workspaces/${id}/network/secrets`).then((r) => r.text());
    expect(listed).toContain("api-token");
    expect(listed).not.toContain(token);

    const hash = createHash("sha256").update(value).digest("hex");
    const https = await run("curl -sS https://secret.egress.test/whoami");
    expect(JSON.parse(https.output).headerHashes.authorization).toBe(hash);
    // Plain HTTP to the same host, and HTTPS to another host, never carry it.
    const http = await run("curl -sS http://secret.egress.test/whoami");
    expect(JSON.parse(http.output).headerHashes.authorization).toBeUndefined();
    const other = await run("curl -sS https://other.egress.test/whoami");
    expect(JSON.parse(other.output).headerHashes.authorization).toBeUndefined();
    await logged(id, { host: "secret.egress.test", scheme: "https", secrets: ["api-token"], verdict: "allowed" });

    // Not in the environment of any process, nor in any file.
    expect(sh(container, `env | grep -c ${token} || true`)).toBe("0");
    expect(sh(container, `grep -l ${token} /proc/[0-9]*/environ 2>/dev/null | wc -l`)).toBe("0");
    const files = sh(
      container,
      `grep -rlF ${token} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null | head -5 || true`,
    );
    expect(files).toBe("");
    const archive = await owner(`/api/workspaces/${id}/export`);
    expect(archive.status).toBe(200);
    const tar = gunzipSync(Buffer.from(await archive.arrayBuffer()));
    expect(tar.length).toBeGreaterThan(0);
    expect(tar.includes(Buffer.from(token))).toBe(false);

    expect((await send(`/api/workspaces/${id}/network/secrets/api-token`, "DELETE")).status).toBe(204);
    const gone = await run("curl -sS https://secret.egress.test/whoami");
    expect(JSON.parse(gone.output).headerHashes.authorization).toBeUndefined();
    expect((await send(`/api/workspaces/${id}/network/secrets/api-token`, "DELETE")).status).toBe(404);
  });

  it("refuses addresses in any spelling, in the allow list and in a secret's hosts (issue 19)", async () => {
    const network = `/api/workspaces/${id}/network`;
    for (const host of ["*.0.0.1", "*.0.1", "0.0.1", "127.1", "0x7f.0.0.1"]) {
      const policy = await send(network, "PUT", { mode: "allowlist", allow: [host] });
      expect(policy.status, host).toBe(400);
      expect(await policy.json()).toMatchObject({
        code: "INVALID_NETWORK_POLICY",
        message: expect.stringMatching(/IP address/),
      });
      const secret = await send(`${network}/secrets/gh`, "PUT", { value: "x", hosts: [host] });
      expect(secret.status, host).toBe(400);
      expect(await secret.json()).toMatchObject({
        code: "INVALID_SECRET",
        message: expect.stringMatching(/IP address/),
      });
    }
  });

  it("refuses bad input with the reason, and another user's workspace is not found", async () => {
    const bad = async (path: string, method: string, body: unknown, code: string, reason: RegExp) => {
      const response = await send(path, method, body);
      const answer = (await response.json()) as { code: string; message: string };
      expect(response.status, JSON.stringify(answer)).toBe(400);
      expect(answer.code).toBe(code);
      expect(answer.message).toMatch(reason);
    };
    const network = `/api/workspaces/${id}/network`;
    // This test's own starting point, whatever the tests before it left.
    await setPolicy(id, { mode: "allowlist", allow: [REGISTRY, "*.egress.test"] });
    await bad(network, "PUT", { mode: "allowlist", allow: ["exa mple.com"] }, "INVALID_NETWORK_POLICY", /hostname/);
    await bad(network, "PUT", { mode: "allowlist", allow: ["*foo.com"] }, "INVALID_NETWORK_POLICY", /wildcard/);
    await bad(network, "PUT", { mode: "allowlist", allow: ["https://x.com/"] }, "INVALID_NETWORK_POLICY", /scheme/);
    await bad(network, "PUT", { mode: "allowlist", allow: [""] }, "INVALID_NETWORK_POLICY", /empty/);
    await bad(network, "PUT", { mode: "everything", allow: [] }, "INVALID_NETWORK_POLICY", /mode/);
    const secret = `${network}/secrets/gh`;
    await bad(secret, "PUT", { value: "x", hosts: ["*"] }, "INVALID_SECRET", /never sent to every host/);
    await bad(secret, "PUT", { value: "x", hosts: [] }, "INVALID_SECRET", /at least one host/);
    await bad(secret, "PUT", { value: "x", hosts: [""] }, "INVALID_SECRET", /empty/);
    await bad(secret, "PUT", { value: "a\r\nX-Evil: 1", hosts: ["github.com"] }, "INVALID_SECRET", /line breaks/);
    await bad(secret, "PUT", { value: "x", hosts: ["github.com"], header: "Host" }, "INVALID_SECRET", /Host/);
    // Nothing was changed by any of them.
    const settings = (await owner(network).then((r) => r.json())) as NetworkSettings;
    expect(settings.allow).toEqual([REGISTRY, "*.egress.test"]);
    expect(settings.secrets).toEqual([]);

    const mallory = await accessUser("mallory@example.com");
    const json = { ...mallory, "Content-Type": "application/json" };
    expect((await api(network, { headers: mallory })).status).toBe(404);
    expect((await api(`${network}/log`, { headers: mallory })).status).toBe(404);
    const policy = JSON.stringify({ mode: "open", allow: [] });
    expect((await api(network, { method: "PUT", headers: json, body: policy })).status).toBe(404);
    const body = JSON.stringify({ value: "x", hosts: ["github.com"] });
    expect((await api(secret, { method: "PUT", headers: json, body })).status).toBe(404);
    expect((await api(secret, { method: "DELETE", headers: mallory })).status).toBe(404);
    expect(((await owner(network).then((r) => r.json())) as NetworkSettings).mode).toBe("allowlist");
  });
});

describe("the open mode", () => {
  let id: string;
  let container: string;
  let term: TerminalSocket;
  const run = terminalRunner(
    () => term,
    () => container,
  );

  beforeAll(async () => {
    id = await createWorkspace("open network");
    // Before its first start: no restart needed.
    await setPolicy(id, { mode: "open", allow: [] });
    container = (await wake(id)).container;
    term = await openTerminalSocket(id, "net");
  });

  afterAll(() => {
    term?.ws.close();
    removeWhatWeMade();
  });

  it("reaches the registry directly: nothing is intercepted, so the log stays empty", async () => {
    const view = await run(NPM_VIEW);
    expect(view, view.output).toMatchObject({ status: 0 });
    expect(await networkLog(id)).toEqual({ entries: [], intercepting: false });
    expect(sh(container, "cat /etc/cloud-ide/egress-ca.crt")).toBe("");
  });

  it("asks for a restart to leave open, and restarts on confirmation with the files kept", async () => {
    sh(container, "echo kept > /workspace/kept.txt");
    const refused = await send(`/api/workspaces/${id}/network`, "PUT", { mode: "allowlist", allow: [REGISTRY] });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe("RESTART_REQUIRED");
    expect(((await owner(`/api/workspaces/${id}/network`).then((r) => r.json())) as NetworkSettings).mode).toBe("open");

    term.ws.close();
    const before = containerId(container);
    const restarted = await setPolicy(id, { mode: "allowlist", allow: [REGISTRY], restart: true });
    expect(restarted).toMatchObject({ mode: "allowlist", containerMode: "allowlist", restarted: true });
    // A new container under the same name, from the snapshot the restart saved.
    expect(containerId(container)).not.toBe(before);
    expect(sh(container, "cat /workspace/kept.txt")).toBe("kept");
    term = await openTerminalSocket(id, "net2");
    const view = await run(NPM_VIEW);
    expect(view, view.output).toMatchObject({ status: 0 });
    expect((await networkLog(id)).intercepting).toBe(true);
    await logged(id, { host: REGISTRY, verdict: "allowed" });
  });

  it("goes back to open with a restart: the registry answers and nothing more is logged", async () => {
    // A workspace of its own, started in the default allowlist mode with a request logged.
    const own = await createWorkspace("back to open");
    const ownContainer = (await wake(own)).container;
    let ownTerm = await openTerminalSocket(own, "net");
    const runOwn = terminalRunner(
      () => ownTerm,
      () => ownContainer,
    );
    expect(await runOwn(NPM_VIEW)).toMatchObject({ status: 0 });
    await logged(own, { host: REGISTRY, verdict: "allowed" });

    ownTerm.ws.close();
    const restarted = await setPolicy(own, { mode: "open", allow: [], restart: true });
    expect(restarted).toMatchObject({ mode: "open", containerMode: "open", restarted: true });
    const seen = Math.max(0, ...(await networkLog(own)).entries.map((e) => e.id));
    expect(seen).toBeGreaterThan(0);
    ownTerm = await openTerminalSocket(own, "net2");
    const view = await runOwn(NPM_VIEW);
    expect(view, view.output).toMatchObject({ status: 0 });
    const log = await owner(`/api/workspaces/${own}/network/log?after=${seen}`).then((r) => r.json());
    expect(log).toEqual({ entries: [], intercepting: false });
    ownTerm.ws.close();
  });
});
