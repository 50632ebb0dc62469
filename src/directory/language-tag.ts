/**
 * The first language tag of a person's language as a directory gives it: LDAP's preferredLanguage and
 * SCIM's preferredLanguage may hold an Accept-Language list (`zh-CN, en;q=0.8`), SCIM's locale a tag
 * (`en-US`). Anything that is not a language tag is left out (undefined).
 */
export function firstLanguageTag(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const tag = value.split(',')[0]?.split(';')[0]?.trim();
  return tag && tag.length <= 35 && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/.test(tag) ? tag : undefined;
}
