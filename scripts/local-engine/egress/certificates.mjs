// The interception CA and the leaf certificates it signs, made with OpenSSL
// (in the sidecar's image). Like the real sidecar's: a CA of its own per
// sidecar (ECDSA P-256, 30 days), served to workerd on GET /ca, whose key never
// leaves the sidecar; one leaf per server name, made on first use and kept.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Names a leaf may be made for: a DNS name, nothing that could reach OpenSSL's syntax. */
const SERVER_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;
const MAX_CACHED = 512;

const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = cloud-ide local egress CA
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:\${ENV::LEAF_NAME}
authorityKeyIdentifier = keyid
`;

/** @param {string} name */
export function isCertifiableName(name) {
  return SERVER_NAME.test(name);
}

/**
 * Makes a new CA in a private directory.
 * @returns {Promise<{ certificate: string, mintLeaf: (name: string) => Promise<{ key: string, cert: string }> }>}
 */
export async function createAuthority() {
  const dir = await mkdtemp(join(tmpdir(), "egress-ca-"));
  const config = join(dir, "openssl.cnf");
  const caKey = join(dir, "ca.key");
  const caCert = join(dir, "ca.pem");
  await writeFile(config, CONFIG, { mode: 0o600 });
  await run(
    "openssl",
    [
      "req",
      "-x509",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-config",
      config,
      "-extensions",
      "ca",
      "-days",
      "30",
      "-keyout",
      caKey,
      "-out",
      caCert,
    ],
    { env: { ...process.env, LEAF_NAME: "unused.invalid" } },
  );
  const certificate = await readFile(caCert, "utf8");

  /** @type {Map<string, Promise<{ key: string, cert: string }>>} */
  const leaves = new Map();
  let serial = 0;

  /** @param {string} name */
  async function makeLeaf(name) {
    serial += 1;
    const key = join(dir, `leaf-${serial}.key`);
    const cert = join(dir, `leaf-${serial}.pem`);
    await run(
      "openssl",
      [
        "req",
        "-x509",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-config",
        config,
        "-subj",
        `/CN=${name}`,
        "-extensions",
        "leaf",
        "-CA",
        caCert,
        "-CAkey",
        caKey,
        "-days",
        "30",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { env: { ...process.env, LEAF_NAME: name } },
    );
    return { key: await readFile(key, "utf8"), cert: `${await readFile(cert, "utf8")}${certificate}` };
  }

  return {
    certificate,
    mintLeaf(name) {
      if (!isCertifiableName(name)) return Promise.reject(new Error(`not a name to certify: ${JSON.stringify(name)}`));
      let leaf = leaves.get(name);
      if (!leaf) {
        if (leaves.size >= MAX_CACHED) leaves.clear();
        leaf = makeLeaf(name);
        leaves.set(name, leaf);
        leaf.catch(() => leaves.delete(name));
      }
      return leaf;
    },
  };
}
