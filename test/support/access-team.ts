/**
 * A stand-in Cloudflare Access team for tests: a key pair made here and its
 * public key served at `/cdn-cgi/access/certs`, like a real team domain.
 */
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, type JWK } from "jose";

export const ACCESS_AUD = "cloud-ide-test-audience";

export interface AccessTeam {
  teamDomain: string;
  privateJwk: JWK;
  close(): Promise<void>;
}

export async function startAccessTeam(): Promise<AccessTeam> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256" };
  const server: Server = createServer((req, res) => {
    if (req.url === "/cdn-cgi/access/certs") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    teamDomain: `http://127.0.0.1:${port}`,
    privateJwk,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
