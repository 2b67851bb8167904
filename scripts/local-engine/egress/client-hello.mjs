// Reads the server name (SNI) from the first bytes of a TLS connection, the
// ClientHello, without consuming them: the interceptor decides from it whether
// workerd wants the connection decrypted, then either terminates TLS itself or
// passes the same bytes on.

/** TLS record header: type (1), version (2), length (2). */
const RECORD_HEADER = 5;
const HANDSHAKE = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;
const HOST_NAME = 0x00;

/**
 * @param {Buffer} bytes what the client sent so far
 * @returns {{ state: "not-tls" } | { state: "need-more" } | { state: "done", sni: string | undefined }}
 *   `done` with no `sni` for a ClientHello without one (or one this cannot read)
 */
export function readClientHello(bytes) {
  if (bytes.length === 0) return { state: "need-more" };
  if (bytes[0] !== HANDSHAKE) return { state: "not-tls" };
  if (bytes.length < RECORD_HEADER) return { state: "need-more" };
  const recordLength = bytes.readUInt16BE(3);
  if (bytes.length < RECORD_HEADER + recordLength) return { state: "need-more" };
  return { state: "done", sni: serverName(bytes.subarray(RECORD_HEADER, RECORD_HEADER + recordLength)) };
}

/** @param {Buffer} record */
function serverName(record) {
  try {
    if (record[0] !== CLIENT_HELLO) return undefined;
    let at = 4; // handshake type (1) + length (3)
    at += 2 + 32; // version, random
    at += 1 + record.readUInt8(at); // session id
    at += 2 + record.readUInt16BE(at); // cipher suites
    at += 1 + record.readUInt8(at); // compression methods
    if (at + 2 > record.length) return undefined;
    const end = Math.min(record.length, at + 2 + record.readUInt16BE(at));
    at += 2;
    while (at + 4 <= end) {
      const type = record.readUInt16BE(at);
      const length = record.readUInt16BE(at + 2);
      at += 4;
      if (type === SERVER_NAME_EXTENSION) {
        let entry = at + 2; // list length
        while (entry + 3 <= at + length) {
          const nameType = record.readUInt8(entry);
          const nameLength = record.readUInt16BE(entry + 1);
          if (nameType === HOST_NAME) {
            return record
              .subarray(entry + 3, entry + 3 + nameLength)
              .toString("latin1")
              .toLowerCase();
          }
          entry += 3 + nameLength;
        }
        return undefined;
      }
      at += length;
    }
    return undefined;
  } catch {
    // A truncated or malformed hello: no name to go by.
    return undefined;
  }
}
