// A way from this machine straight to a port inside a workspace container,
// past the Worker and the Durable Object: the reference that preview figures
// are measured against. Workspaces are isolated on the Docker bridge, so the
// path is the one workerd itself takes: the network sidecar's relay port
// (published on loopback), asked with CONNECT and X-Dst-Addr for the port.
import { execFileSync } from "node:child_process";
import net from "node:net";

/**
 * Listens on a free loopback port and tunnels every connection to `port` in
 * `container` (an app container's name). Returns its URL and a close().
 * @param {string} container
 * @param {number} port
 */
export async function tunnelToContainerPort(container, port) {
  const published = execFileSync("docker", ["port", `${container}-proxy`, "39001/tcp"], { encoding: "utf8" })
    .trim()
    .split("\n")[0];
  const [relayHost, relayPort] = [
    published.slice(0, published.lastIndexOf(":")),
    published.slice(published.lastIndexOf(":") + 1),
  ];
  const server = net.createServer((client) => {
    client.pause();
    const relay = net.connect(Number(relayPort), relayHost, () => {
      relay.write(
        `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Dst-Addr: 127.0.0.1:${port}\r\n\r\n`,
      );
    });
    let head = Buffer.alloc(0);
    const onHead = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      relay.off("data", onHead);
      if (!/^HTTP\/1\.[01] 200/.test(head.toString("latin1"))) {
        client.destroy();
        relay.destroy();
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) client.write(rest);
      relay.pipe(client);
      client.pipe(relay);
      client.resume();
    };
    relay.on("data", onHead);
    const fail = () => {
      client.destroy();
      relay.destroy();
    };
    relay.on("error", fail);
    client.on("error", fail);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: local } = server.address();
  return { url: `http://127.0.0.1:${local}`, close: () => new Promise((resolve) => server.close(resolve)) };
}
