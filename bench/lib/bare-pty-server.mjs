// The bare reference for bench/terminal.bench.mjs: node-pty + ws on this
// machine, no container, no tmux, no flow control. One bash per connection.
// argv: <node_modules dir holding node-pty> ; prints the port it listens on.
import { createRequire } from "node:module";
import { join } from "node:path";
import { WebSocketServer } from "ws";

const require = createRequire(join(process.argv[2], "noop.js"));
const pty = require("node-pty");
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws) => {
  const shell = pty.spawn("bash", ["--norc", "--noprofile"], {
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
