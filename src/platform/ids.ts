import { randomBytes, randomUUID } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Bitcoin's alphabet: no 0, O, I or l. */
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Uniform random characters from an alphabet (rejection sampling: no modulo bias). */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** 22 base62 characters carry 130 bits: a cart token is the only credential most cart calls have. */
export const newCartToken = (): string => `ct_${randomString(BASE62, 22)}`;
export const newSessionId = (): string => `ss_${randomString(BASE58, 22)}`;
export const newSecretToken = (prefix: string): string => `${prefix}${randomString(BASE62, 40)}`;
export const newUuid = (): string => randomUUID();

export const SESSION_ID_PATTERN = /^ss_[1-9A-HJ-NP-Za-km-z]{22}$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
