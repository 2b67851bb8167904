// The PTY references for bench/terminal.bench.mjs: node-pty + ws on this
// machine, no flow control. One process per connection: bash by default (the
// bare reference, no container, no tmux), or the argv given as JSON in the
// `argv` query parameter (the in-container references: `docker exec -it ...`,
// whose own PTY is then inside the workspace's container).
// argv: <node_modules dir holding node-pty> ; prints the port it listens on.
import { createRequire } from "node:module";
import { join } from "node:path";
import { WebSocketServer } from "ws";

const require = createRequire(join(process.argv[2], "noop.js"));
const pty = require("node-pty");
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws, request) => {
  const given = new URL(request.url, "http://localhost").searchParams.get("argv");
  const [file, ...args] = given ? JSON.parse(given) : ["bash", "--norc", "--noprofile"];
  const shell = pty.spawn(file, args, {
    name: "xterm-256color",
    cols: 120,
    rows: 40,
    cwd: process.env.HOME,
    env: { ...process.env, PS1: "bare$ " },
  });
  shell.onData((data) => ws.send(Buffer.from(data, "utf8")));
  shell.onExit(() => ws.close());
  ws.on("message", (data) => shell.write(data.toString()));
  ws.on("close", () => shell.kill());
});
wss.on("listening", () => console.log(wss.address().port));
