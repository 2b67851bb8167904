// Language servers: the TypeScript server on the template app, through the
// IDE's socket (Worker, Durable Object, bridge, exec stdio) and, as the
// reference, the same typescript-language-server run bare with `docker exec -i`
// in the same container in the same run (warm samples by turns). Cold start to the first completion,
// warm completion (`document.qu`), go to definition (`<App />`), and the
// time from an edit that breaks a type to its diagnostic.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { socketClient, stdioClient } from "./lib/lsp-clients.mjs";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Language servers (TypeScript, template app)";

const WARM_RUNS = 30;
const EDIT_RUNS = 5;
const MAIN = "file:///workspace/src/main.tsx";
const SERVER = ["/opt/language-servers/node_modules/.bin/typescript-language-server", "--stdio"];
/** What the IDE gives the server (worker/lsp/server-specs.ts); the bare reference gets the same. */
const INITIALIZATION_OPTIONS = { disableAutomaticTypingAcquisition: true, tsserver: { useSyntaxServer: "never" } };

/**
 * Connects a client and times its cold start to a first completion that
 * holds `querySelector`; answers the warm steps, one timed sample a call,
 * so that the IDE's and the bare server's samples can be taken by turns.
 */
async function open(connect, text) {
  const start = performance.now();
  const lsp = await connect();
  await lsp.request("initialize", {
    processId: null,
    rootUri: "file:///workspace",
    initializationOptions: INITIALIZATION_OPTIONS,
    capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } } },
  });
  lsp.notify("initialized", {});
  const source = `${text}document.qu\n`;
  const lines = source.split("\n");
  const completionAt = { line: lines.length - 2, character: "document.qu".length };
  const usage = lines.findIndex((l) => l.includes("<App />"));
  const definitionAt = { line: usage, character: lines[usage].indexOf("<App") + 2 };
  lsp.notify("textDocument/didOpen", {
    textDocument: { uri: MAIN, languageId: "typescriptreact", version: 1, text: source },
  });
  const complete = () =>
    lsp.request("textDocument/completion", { textDocument: { uri: MAIN }, position: completionAt });
  const labels = (result) => (result?.items ?? result ?? []).map((i) => i.label);
  // Until the project is loaded an answer may lack the DOM's names: asked again, as an editor would.
  while (!labels(await complete()).includes("querySelector")) {
    if (performance.now() - start > 60_000) throw new Error("no querySelector in the completion");
  }
  const cold = performance.now() - start;
  // Warm: the project loaded (its first diagnostics), then each request alone.
  await lsp.waitFor((m) => m.method === "textDocument/publishDiagnostics" && m.params.uri === MAIN, 60_000);
  let version = 1;
  return {
    cold,
    close: () => lsp.close(),
    async completion() {
      const t = performance.now();
      await complete();
      return performance.now() - t;
    },
    async definition() {
      const t = performance.now();
      const result = await lsp.request("textDocument/definition", {
        textDocument: { uri: MAIN },
        position: definitionAt,
      });
      const ms = performance.now() - t;
      const target = [result].flat()[0];
      if (!(target?.uri ?? target?.targetUri)?.endsWith("/src/App.tsx")) throw new Error("definition not in App.tsx");
      return ms;
    },
    /** An edit that breaks a type, timed to the diagnostic that reports it; then undone (not timed). */
    async diagnostic(i) {
      const broken = `${source}export const n${i}: number = "x${i}";\n`;
      const seen = lsp.waitFor(
        (m) =>
          m.method === "textDocument/publishDiagnostics" &&
          m.params.uri === MAIN &&
          m.params.diagnostics.some((d) => d.message.includes("not assignable to type 'number'")),
      );
      const t = performance.now();
      lsp.notify("textDocument/didChange", {
        textDocument: { uri: MAIN, version: ++version },
        contentChanges: [{ text: broken }],
      });
      await seen;
      const ms = performance.now() - t;
      const fixed = lsp.waitFor(
        (m) =>
          m.method === "textDocument/publishDiagnostics" &&
          m.params.uri === MAIN &&
          !m.params.diagnostics.some((d) => d.message.includes("not assignable")),
      );
      lsp.notify("textDocument/didChange", {
        textDocument: { uri: MAIN, version: ++version },
        contentChanges: [{ text: source }],
      });
      await fixed;
      return ms;
    },
  };
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench lsp" } });
  try {
    const container = await findContainer(session, id);
    const text = execFileSync("docker", ["exec", container, "cat", "/workspace/src/main.tsx"], { encoding: "utf8" });
    // The IDE first: its server is the first one this container starts. Then the warm samples by turns.
    const oursClient = await open(() => socketClient(baseUrl, session.cookie, id, "typescript"), text);
    const bareClient = await open(async () => stdioClient(container, SERVER), text);
    const ours = { cold: oursClient.cold };
    const bare = { cold: bareClient.cold };
    try {
      [ours.completions, bare.completions] = await alternate(WARM_RUNS, oursClient.completion, bareClient.completion);
      [ours.definitions, bare.definitions] = await alternate(WARM_RUNS, oursClient.definition, bareClient.definition);
      [ours.diagnostics, bare.diagnostics] = await alternate(EDIT_RUNS, oursClient.diagnostic, bareClient.diagnostic);
    } finally {
      oursClient.close();
      bareClient.close();
    }
    const row = (metric, pick, unit, target) => ({
      metric,
      ours: pick(ours),
      reference: pick(bare),
      referenceName: "docker exec -i typescript-language-server",
      unit,
      target,
    });
    return [
      row("cold start to first completion", (r) => r.cold, "ms", "< 5000 ms"),
      row("completion p50", (r) => percentile(r.completions, 50), "ms", "< 150 ms"),
      row(`completion p95 of ${WARM_RUNS}`, (r) => percentile(r.completions, 95), "ms", "< 400 ms"),
      row("go to definition p50", (r) => percentile(r.definitions, 50), "ms"),
      row(`go to definition p95 of ${WARM_RUNS}`, (r) => percentile(r.definitions, 95), "ms", "< 300 ms"),
      row("edit to type-error diagnostic p50", (r) => percentile(r.diagnostics, 50), "ms", "< 1500 ms"),
      row(`edit to type-error diagnostic, max of ${EDIT_RUNS}`, (r) => Math.max(...r.diagnostics), "ms", "< 1500 ms"),
    ];
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
}
