/**
 * Test only: a one-commit Git repository served over git's "dumb" HTTP
 * protocol (plain files: info/refs, HEAD, loose objects), made here, so a
 * workspace can clone a repository without any outside host. The test
 * Worker's Outbound entrypoint (egress-test-handler.ts) answers it at
 * http(s)://git.egress.test/repo.git, and at /private.git to requests that
 * carry the test token, for workspaces whose policy allows that host.
 */

import { concatBytes } from "../bytes";
import { TEST_REPOSITORY_FILE, TEST_REPOSITORY_SUBJECT } from "./test-git-hosts";

let files: Promise<Map<string, Uint8Array>> | undefined;

/** The repository's files by path below /repo.git, or undefined for a path it lacks. */
export async function repositoryFile(path: string): Promise<Uint8Array | undefined> {
  files ??= build();
  return (await files).get(path);
}

async function build(): Promise<Map<string, Uint8Array>> {
  const encoder = new TextEncoder();
  const out = new Map<string, Uint8Array>();
  const put = async (type: string, body: Uint8Array): Promise<Uint8Array> => {
    const object = concatBytes([encoder.encode(`${type} ${body.byteLength}\0`), body]);
    const id = new Uint8Array(await crypto.subtle.digest("SHA-1", object));
    const name = hex(id);
    out.set(`/objects/${name.slice(0, 2)}/${name.slice(2)}`, await deflate(object));
    return id;
  };
  const blob = await put("blob", encoder.encode(TEST_REPOSITORY_FILE.text));
  const tree = await put("tree", concatBytes([encoder.encode(`100644 ${TEST_REPOSITORY_FILE.name}\0`), blob]));
  const who = "Test Handler <test@egress.test> 1700000000 +0000";
  const commit = await put(
    "commit",
    encoder.encode(`tree ${hex(tree)}\nauthor ${who}\ncommitter ${who}\n\n${TEST_REPOSITORY_SUBJECT}\n`),
  );
  out.set("/info/refs", encoder.encode(`${hex(commit)}\trefs/heads/main\n`));
  out.set("/HEAD", encoder.encode("ref: refs/heads/main\n"));
  out.set("/objects/info/packs", new Uint8Array());
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  // "deflate" is zlib's format (RFC 1950), as loose objects are stored.
  const stream = (new Response(bytes).body as ReadableStream<Uint8Array>).pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
