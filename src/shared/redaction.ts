/**
 * Secrets never leave collab-host: whatever is shown or sent from something it received (event listings,
 * notifications, logs) goes through these first. Credentials are recognised by name (query parameters,
 * header and JSON member names such as `token`, `signature`, `password`, `access_token`,
 * `X-Platform-Token`, `Authorization`) and by place (the user-info of a URL, a `Bearer` value).
 */

const CENSORED = '[redacted]';

/** Names that hold credentials, matched whole and case-blind (`X-<brand>-Token` included). */
const SECRET_NAME =
  /^(?:x-[a-z0-9]+-)?(?:token|signature|sig|key|secret|password|passwd|pwd|pass|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|api[_-]?key|apikey|client[_-]?secret|app[_-]?secret|private[_-]?key|authorization|proxy-authorization|cookie|set-cookie|session|sessionid|credentials?)$/i;

/** `name=value` pairs in URLs (query or fragment) and in free text. */
const NAME_VALUE = /(^|[?&#;,\s"'(])([A-Za-z][\w-]*)=([^&#;,\s"')]*)/g;
/** `"name": "value"` inside text (a JSON body quoted in an error message). */
const QUOTED_MEMBER = /("([A-Za-z][\w-]*)"\s*:\s*")((?:[^"\\]|\\.)*)(")/g;
/** The user-info of a URL: `scheme://user:password@host`. */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@]*@/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A URL without user-info and without the values of credential parameters. */
export function redactUrl(url: string): string {
  return redactText(url);
}

/** Free text (an error message, a URL, a quoted body) with every credential it carries censored. */
export function redactText(text: string): string {
  return text
    .replace(USER_INFO, `$1${CENSORED}@`)
    .replace(BEARER, `$1 ${CENSORED}`)
    .replace(NAME_VALUE, (whole, lead: string, name: string) => (isSecretName(name) ? `${lead}${name}=${CENSORED}` : whole))
    .replace(QUOTED_MEMBER, (whole, open: string, name: string, _value: string, close: string) => (isSecretName(name) ? `${open}${CENSORED}${close}` : whole));
}

/** What stands for the part of a value nested past the bound of `redactValue`. */
export const TOO_DEEP = '[nested too deep to show]';

/**
 * A received value (an event body) with credential members censored and every string redacted. Arrays
 * and objects nested more than `maxDepth` levels are shown as TOO_DEEP: a body stored before bodies were
 * bounded (src/http/json-body.ts) must never break the listing that shows it, or its serializer.
 */
export function redactValue(value: unknown, maxDepth = 64): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (maxDepth <= 0) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, maxDepth - 1));
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, isSecretName(name) && member !== null && typeof member !== 'object' ? CENSORED : redactValue(member, maxDepth - 1)]),
  );
}
