import { describe, expect, it } from "vitest";
import { normalUserCode, parsePublicKey } from "./access";

// Made with ssh-keygen; the fingerprints are what `ssh-keygen -l` printed for them.
const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDJy1qBBpncoAjFP9KKPC0XRUXyI1X5RGtoY4p2SF1au a@b";
const ECDSA =
  "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBHWl9ba6yx0L3q0gAXZcNF559bIG6vKzyKd8h6yPjMFI1Iu3KoWRfnAMEVjn5wc22fSlhdonPazx+J4ZTGVeEn0=";
const RSA_2048 =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC77VGSX89yb+J2YQEycQBMrT1fD3G5jJhT2DBNgoUQYmmhWQ3usybFizZdabGF5lO+Vb81Ywz/eI50q48uWATzeTbsRGzjIy/YiwNO2oShkYsHEM8iWAln7dxJKtFuH2+n6j0z4Z+A9uHjIxoPeP9YYicq250FzZLvx3usrGD46uZB/LOn6Zb9zW7xaJTWPEAwhVhWLvwNjqX51UKGHR87AJC4unlnNam8TuQ8fqHaplglEf/vzB+ybkiSNjJ/lSqg8eRmB6+NgZG+3K/CaSKIX8SNxYzn5Va6mp9EOfArr60z8Nb6jx48nAn4+VnldNNK9R+aWd/ZDsQQ9bBXos1P";
const RSA_3072 =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQDHNKvry0hzWXfbsw7qFtrWw4Dv6nEW+dqBGYDPemRaDNZOxQeju72tfqS5KroojyHMlpgrKgMQKLiWcJDYuOu2lExtlhO7JSCc7wPYlyvBK+XVxQKkuF1XZ3M2CNDUWlaiKaNxQhZ9E3+K2PGTp4QX93lsuor5NlCvvZNf0AKx1G/1ftwhxTM7b/3roawJSv6AFTvKYySV9EmtEFvHKMn82Gk2am4a5w5XeKrht1q+hAznVmyHqdpXX6C/yOafI51BPlHmbLupDU5AwwcQiHh6qu0+8GG1qeW9gqvytVtMKhZXMdE7xtT6r5G7eTR0hgEM8WmyztZ2tzBGRwOYkRcxvlTwpUeC+A4HTFXzaICugsjLx4uattfPIOLgA1tpkcxIJeKppss3PPMUZ8Y1j/nYxsX4vmcWcLj0xPir7HFvW9/RGuQTPAU+Jx90rYJthci6Epa6CW5M1vrRWUmfu2IqGwSjJWrb80GDYTMIrr+k1UIzUHXoR7EJkP4aYSOkIkU=";

async function fingerprint(blob: Uint8Array | false): Promise<string> {
  if (!blob) return "no key";
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", blob as Uint8Array<ArrayBuffer>));
  return `SHA256:${btoa(String.fromCharCode(...digest)).replace(/=+$/, "")}`;
}

describe("parsePublicKey", () => {
  it("takes ed25519, ECDSA and RSA of 3072 bits, dropping the comment", async () => {
    const ed = parsePublicKey(ED25519);
    expect(ed).toMatchObject({ type: "ssh-ed25519", line: ED25519.split(" ").slice(0, 2).join(" ") });
    expect(await fingerprint("blob" in ed && ed.blob)).toBe("SHA256:MDIQwU4gU7ClR4IL+BXKXZSwPgVcZbQkKb0yvsqV/6Q");
    const ec = parsePublicKey(`${ECDSA}\n`);
    expect(await fingerprint("blob" in ec && ec.blob)).toBe("SHA256:xVEm2gTd5PQY1Joh/6ZVzV7O2Er50DWqVz47e6A5htM");
    const rsa = parsePublicKey(RSA_3072);
    expect(await fingerprint("blob" in rsa && rsa.blob)).toBe("SHA256:ZTMjvXt8f3+FLoFPrAcAKw/yWyPm8hsgSAiYh6AW+i0");
  });

  it("refuses RSA under 3072 bits, saying how many it has", () => {
    expect(parsePublicKey(RSA_2048)).toEqual({ error: expect.stringContaining("2048 bits; 3072 or more") });
  });

  it("refuses what is not one accepted public key, saying why", () => {
    const refusals: [unknown, string][] = [
      ["", "required"],
      [42, "required"],
      [`${ED25519}\n${ECDSA}`, "one key"],
      ["-----BEGIN OPENSSH PRIVATE KEY-----", "private key"],
      [`ssh-dss ${ED25519.split(" ")[1]}`, "DSA"],
      [`ssh-foo ${ED25519.split(" ")[1]}`, "not an accepted key type"],
      ["ssh-ed25519 not*base64", "not base64"],
      // The line says RSA, its data is an Ed25519 key.
      [`ssh-rsa ${ED25519.split(" ")[1]}`, "of type ssh-ed25519"],
      // Cut short.
      [`ssh-ed25519 ${ED25519.split(" ")[1]?.slice(0, 40)}`, "cut short"],
    ];
    for (const [value, words] of refusals) {
      expect(parsePublicKey(value), String(value)).toEqual({ error: expect.stringContaining(words) });
    }
  });
});

describe("normalUserCode", () => {
  it("reads a code in any case, with or without its dash, and refuses other letters", () => {
    expect(normalUserCode("bcdf-ghjk")).toBe("BCDF-GHJK");
    expect(normalUserCode("BCDFGHJK")).toBe("BCDF-GHJK");
    expect(normalUserCode("ABCD-EFGH")).toBeUndefined();
    expect(normalUserCode("BCDF")).toBeUndefined();
    expect(normalUserCode(undefined)).toBeUndefined();
  });
});
