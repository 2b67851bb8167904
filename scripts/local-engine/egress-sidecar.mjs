// Local stand-in for workerd's network sidecar (`cloudflare/proxy-everything`),
// used only where that image cannot be pulled. workerd runs every app container
// in this container's network namespace and talks to it on the ingress port:
//   GET  /ca       -> a PEM that workerd installs in the app container
//   PUT  /egress   -> egress settings; we apply `internet.enabled` with iptables
//   CONNECT        -> `X-Dst-Addr: 127.0.0.1:PORT`: 400 when nothing listens,
//                     else 200 and bytes relayed both ways (getTcpPort().fetch())
// It does not intercept outbound HTTP(S); see README "Local platform".
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const [host, port] = arg("--http-ingress-address", "0.0.0.0:39001").split(":");
const ca = readFileSync(new URL("./ca.pem", import.meta.url));
let internetBlocked = false;

function setInternet(enabled) {
  const blocked = !enabled;
  if (blocked === internetBlocked) return;
  const rules = [
    ["-o", "lo", "-j", "ACCEPT"],
    ["-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
    ["-j", "REJECT"],
  ];
  try {
    for (const rule of rules) {
      execFileSync("iptables", [blocked ? "-A" : "-D", "OUTPUT", ...rule]);
    }
    internetBlocked = blocked;
    console.log(`egress: internet ${enabled ? "allowed" : "blocked"}`);
  } catch (error) {
    console.error(`egress: could not apply iptables rules: ${error.message}`);
  }
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/ca") {
    res.writeHead(200, { "content-type": "application/x-pem-file" });
    res.end(ca);
    return;
  }
  if (req.method === "PUT" && req.url === "/egress") {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      try {
        const config = JSON.parse(body || "{}");
        const enabled = config?.internet?.enabled;
        if (typeof enabled === "boolean") setInternet(enabled);
      } catch {
        // Settings we cannot read leave the current rules in place.
      }
      res.writeHead(200).end();
    });
    return;
  }
  res.writeHead(404).end();
});

server.on("connect", (req, clientSocket, head) => {
  const target = String(req.headers["x-dst-addr"] ?? req.url ?? "");
  const match = /^(.+):(\d+)$/.exec(target);
  if (!match) {
    clientSocket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    return;
  }
  const upstream = net.connect(Number(match[2]), match[1]);
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    clientSocket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(clientSocket);
    clientSocket.pipe(upstream);
  });
  upstream.on("error", () => {
    if (connected) clientSocket.destroy();
    else clientSocket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
  });
  clientSocket.on("error", () => upstream.destroy());
});

server.listen(Number(port), host, () => {
  console.log(`egress sidecar listening on ${host}:${port}`);
});
