import type { LdapEntry } from './ldap-connection.js';

/** Attribute names are case-insensitive in LDAP; servers answer in their own spelling. */
function valuesOf(entry: LdapEntry, attribute: string): Array<string | Buffer> {
  const wanted = attribute.toLowerCase();
  for (const [name, value] of Object.entries(entry)) {
    if (name.toLowerCase() !== wanted || name === 'dn') continue;
    return (Array.isArray(value) ? value : [value]) as Array<string | Buffer>;
  }
  return [];
}

/** The attribute's text values (binary values as hex). */
export function texts(entry: LdapEntry, attribute: string): string[] {
  return valuesOf(entry, attribute).map((value) => (typeof value === 'string' ? value : value.toString('hex')));
}

/** The attribute's first value as text, trimmed; undefined when absent. */
export function firstText(entry: LdapEntry, attribute: string): string | undefined {
  return texts(entry, attribute)[0]?.trim();
}

/**
 * A stable id from an attribute: text as it is (entryUUID), a 16-byte binary value as a GUID in
 * Active Directory's spelling (objectGUID stores its first three fields little-endian).
 */
export function idText(entry: LdapEntry, attribute: string): string | undefined {
  const value = valuesOf(entry, attribute)[0];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (value.length !== 16) return value.toString('hex');
  const hex = (bytes: Buffer) => bytes.toString('hex');
  const reversed = (start: number, end: number) => hex(Buffer.from(value.subarray(start, end)).reverse());
  return `${reversed(0, 4)}-${reversed(4, 6)}-${reversed(6, 8)}-${hex(value.subarray(8, 10))}-${hex(value.subarray(10, 16))}`;
}

/** Splits a DN into its RDNs at commas that are not escaped (`cn=Smith\, John,ou=x`). */
function rdns(dn: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < dn.length; index += 1) {
    const char = dn[index]!;
    if (char === '\\' && index + 1 < dn.length) {
      current += char + dn[index + 1]!;
      index += 1;
    } else if (char === ',' || char === ';') {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** A DN in one spelling for comparisons: attribute types and values lower-cased, spaces around separators gone. */
export function normalizeDn(dn: string): string {
  return rdns(dn)
    .map((rdn) =>
      rdn
        .split('+')
        .map((ava) =>
          ava
            .split('=')
            .map((side) => side.trim())
            .join('='),
        )
        .join('+')
        .toLowerCase(),
    )
    .join(',');
}

/** The DN one level up, or null at the top. */
export function parentDn(dn: string): string | null {
  const parts = rdns(dn);
  return parts.length <= 1 ? null : parts.slice(1).join(',');
}

/** The value of the first RDN (`Sales` of `ou=Sales,dc=example,dc=com`), escapes resolved. */
export function rdnValue(dn: string): string {
  const first = rdns(dn)[0] ?? '';
  const value = first.slice(first.indexOf('=') + 1).trim();
  // `\E5\BC\A0` is UTF-8 written byte by byte; `\,` an escaped special character.
  const bytes: number[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const hex = /^\\([0-9a-fA-F]{2})/.exec(value.slice(index));
    if (hex) {
      bytes.push(Number.parseInt(hex[1]!, 16));
      index += 2;
    } else if (value[index] === '\\' && index + 1 < value.length) {
      bytes.push(...Buffer.from(value[index + 1]!));
      index += 1;
    } else {
      bytes.push(...Buffer.from(value[index]!));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * A binary security identifier (objectSid) split into its domain part (every sub-authority but the last,
 * as hex) and its RID, the last sub-authority: `primaryGroupID` names a group of the user's domain by RID.
 */
export function sidParts(entry: LdapEntry, attribute: string): { domain: string; rid: number } | undefined {
  const value = valuesOf(entry, attribute)[0];
  if (!Buffer.isBuffer(value) || value.length < 12) return undefined;
  const count = value[1]!;
  if (count < 1 || value.length !== 8 + 4 * count) return undefined;
  return { domain: value.subarray(0, value.length - 4).toString('hex'), rid: value.readUInt32LE(value.length - 4) };
}
