/**
 * The compatibility matrix's rows: how a person makes each kind of app in a
 * workspace's terminal, with the generator's defaults, and runs it with its
 * default dev command, unchanged. Generators that fetch their templates from
 * GitHub (Astro, Nuxt, React Router) cannot run here (tests reach the npm
 * registry only) and have no row.
 */
import type { Machine } from "../../protocol/workspace";

/** An edit made in the editor (the files API) that the page must show without reloading. */
export type HotEdit =
  /** Replace `from` with `to` in a component: the page shows `to`. */
  | { kind: "text"; file: string; from: string; to: string }
  /** Append a rule to a stylesheet: the page's first h1 takes its outline colour. */
  | { kind: "css"; file: string };

export interface Row {
  name: string;
  /** The port its dev server listens on by default. */
  port: number;
  /** Files written before the command, relative to /workspace (plain servers serve them). */
  files?: Record<string, string>;
  /** Typed into a terminal in /workspace: generate (non-interactively), install, start. */
  command: string;
  /** Text the rendered page shows. */
  shows: string;
  /** No `hot`: the server has no hot reload (plain servers). */
  hot?: HotEdit;
  /**
   * The framework shows an edit by reloading the page (its dev server
   * replaces no module in place): the edit must show, through a reload.
   */
  reloads?: boolean;
  /** Heavy installs and compiles get a bigger machine than the default. */
  machine?: Machine;
}

/** The outline colour the "css" edit gives h1. */
export const EDITED_OUTLINE = "rgb(1, 2, 3)";
export const EDITED_TEXT = "Edited through hot reload";

/**
 * create-vite: every template shows "Get started" and imports its images with `?import`.
 * `version`: where the latest template cannot install at all (see qwik below).
 */
function createVite(
  template: string,
  hot: HotEdit,
  { version = "latest", shows = "Get started", reloads = false } = {},
): Row {
  return {
    ...(reloads ? { reloads } : {}),
    name: `create-vite ${template}`,
    port: 5173,
    command: `npm create --yes vite@${version} app -- --template ${template} --no-interactive && cd app && npm install && npm run dev`,
    shows,
    hot,
  };
}

const text = (file: string): HotEdit => ({ kind: "text", file: `app/${file}`, from: "Get started", to: EDITED_TEXT });

/** A page with a stylesheet and a script, for the plain servers. */
const site = (dir: string) => ({
  [`${dir}/index.html`]:
    '<!doctype html><html><head><link rel="stylesheet" href="style.css"><script src="app.js" defer></script></head><body><h1>Plain server</h1><p id="js"></p></body></html>\n',
  [`${dir}/style.css`]: "h1 { color: rgb(20, 40, 60); }\n",
  [`${dir}/app.js`]: 'document.getElementById("js").textContent = "script ran";\n',
});

const nodeServer = `const http = require("node:http");
const fs = require("node:fs");
const path = require("node:path");
const types = { ".html": "text/html", ".css": "text/css", ".js": "text/javascript" };
http
  .createServer((req, res) => {
    const name = req.url === "/" ? "index.html" : path.basename(req.url.split("?")[0]);
    fs.readFile(path.join(__dirname, name), (error, body) => {
      if (error) return res.writeHead(404).end("not found");
      res.writeHead(200, { "content-type": types[path.extname(name)] ?? "application/octet-stream" }).end(body);
    });
  })
  .listen(3000, () => console.log("listening on 3000"));
`;

export const ROWS: Row[] = [
  // Vanilla and Lit have no module that accepts its own update: an edit of their code reloads the
  // page (as Vite intends); their stylesheets update in place.
  createVite("vanilla", { kind: "css", file: "app/src/style.css" }),
  createVite("vanilla-ts", { kind: "css", file: "app/src/style.css" }),
  createVite("react", text("src/App.jsx")),
  createVite("react-ts", text("src/App.tsx")),
  createVite("vue", text("src/components/HelloWorld.vue")),
  createVite("svelte", text("src/App.svelte")),
  createVite("solid", text("src/App.jsx")),
  createVite("preact", text("src/app.jsx")),
  createVite("lit", { kind: "css", file: "app/src/index.css" }),
  // create-vite 9's qwik template cannot install from the registry: 9.3.0 asks for @builder.io/qwik
  // ^1.20.2, which is not published (the latest is 1.20.1), and 9.2.1 pairs vite ^8 with qwik 1.20.1,
  // whose peer range is vite <8 (ERESOLVE). 8.2.0's (vite ^7, qwik ^1.17.2) is the newest that installs.
  // Qwik's Vite plugin answers every edit, stylesheets included, with a full reload.
  createVite(
    "qwik",
    { kind: "css", file: "app/src/index.css" },
    { version: "8.2.0", shows: "Vite + Qwik", reloads: true },
  ),
  {
    name: "create-next-app",
    port: 3000,
    command: "npx --yes create-next-app@latest app --yes && cd app && npm run dev",
    shows: "To get started, edit the",
    hot: { kind: "text", file: "app/app/page.tsx", from: "To get started, edit the", to: EDITED_TEXT },
    machine: "standard-2",
  },
  {
    name: "sv create (SvelteKit)",
    port: 5173,
    command:
      "npx --yes sv create app --template minimal --types ts --no-add-ons --install npm && cd app && npm run dev",
    shows: "Welcome to SvelteKit",
    hot: { kind: "text", file: "app/src/routes/+page.svelte", from: "Welcome to SvelteKit", to: EDITED_TEXT },
  },
  {
    name: "Angular CLI (ng new)",
    port: 4200,
    command:
      "export NG_CLI_ANALYTICS=false && npx --yes @angular/cli@latest new app --defaults --style=css --ssr=false --ai-config=none --skip-git && cd app && npm start",
    shows: "Congratulations! Your app is running.",
    hot: { kind: "text", file: "app/src/app/app.html", from: "Congratulations! Your app is running.", to: EDITED_TEXT },
    machine: "standard-2",
  },
  {
    name: "Node http server",
    port: 3000,
    files: { ...site("plain"), "plain/server.js": nodeServer },
    command: "cd plain && node server.js",
    shows: "Plain server",
  },
  {
    name: "npx serve",
    port: 3000,
    files: site("site"),
    command: "cd site && npx --yes serve",
    shows: "Plain server",
  },
  {
    name: "python3 -m http.server",
    port: 8000,
    files: site("site"),
    command: "cd site && python3 -m http.server",
    shows: "Plain server",
  },
];

/** Not in the matrix: their generators download templates from GitHub, which tests cannot reach. */
export const NOT_TESTED = ["Astro (create-astro)", "Nuxt (nuxi init)", "React Router (create-react-router)"];
