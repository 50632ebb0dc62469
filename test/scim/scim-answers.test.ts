import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers/stores.js';
import { ENTERPRISE_SCHEMA, SCIM_TOKEN, USER_SCHEMA } from './scim-client.js';
import { scimAppOnFreshStore } from './scim-store-app.js';

/**
 * Users as identity providers create them, from the plainest to every attribute the User schema and the
 * enterprise extension have, in the spellings and shapes clients send: keys in any case, unset values
 * ("" and null), read-only and write-only attributes, extension attributes by their full path.
 */
const BODIES: Array<[string, Record<string, unknown>]> = [
  ['a userName only', { schemas: [USER_SCHEMA], userName: 'plain@answers.example' }],
  [
    "Okta's first push",
    {
      schemas: [USER_SCHEMA],
      userName: 'okta@answers.example',
      externalId: '00u1abcd',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: 'okta@answers.example', primary: true, type: 'work' }],
      active: true,
    },
  ],
  [
    "Entra ID's, with the enterprise extension and a manager id as a string",
    {
      schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
      userName: 'entra@answers.example',
      externalId: 'a1b2c3',
      active: 'True',
      displayName: '张三',
      name: { formatted: '张三', familyName: '张', givenName: '三' },
      title: 'Engineer',
      preferredLanguage: 'zh-CN',
      emails: [{ type: 'work', value: 'entra@answers.example', primary: 'true' }],
      phoneNumbers: [
        { type: 'mobile', value: '+86 138 0000 0000' },
        { type: 'work', value: '' },
      ],
      addresses: [{ type: 'work', streetAddress: '1 Main St', locality: 'Shanghai', country: 'CN', primary: true }],
      [ENTERPRISE_SCHEMA]: { employeeNumber: '42', department: 'R&D', manager: 'boss-id' },
    },
  ],
  [
    'keys in other cases, IM ids, photos, roles, entitlements and a certificate',
    {
      SCHEMAS: [USER_SCHEMA],
      USERNAME: 'Cased@Answers.example',
      displayname: 'Cased',
      NAME: { GIVENNAME: 'Case', familyname: 'Mixed', middleName: '' },
      ims: [
        { type: 'wecom', value: 'wx-cased' },
        { type: 'slack', value: 'U123', primary: true },
      ],
      photos: [{ type: 'photo', value: 'https://img.example/cased.png' }],
      roles: [{ value: 'admin', display: 'Admin' }],
      entitlements: [{ value: 'e1' }],
      x509Certificates: [{ value: 'TUlJQw==' }],
      nickName: '',
      timezone: 'Asia/Shanghai',
      locale: 'zh_CN',
      profileUrl: 'https://people.example/cased',
      userType: 'Employee',
    },
  ],
  [
    'read-only and write-only attributes, unset values, and extension attributes by their path',
    {
      schemas: [USER_SCHEMA, 'urn:example:params:scim:schemas:extra:1.0:User'],
      userName: 'odd@answers.example',
      id: 'client-chosen-id',
      meta: { created: '2001-01-01T00:00:00Z', resourceType: 'Group' },
      groups: [{ value: 'some-group' }],
      password: 'not answered',
      title: null,
      emails: [],
      active: false,
      [`${ENTERPRISE_SCHEMA}:department`]: 'Sales',
      [`${ENTERPRISE_SCHEMA}:manager`]: { value: 'mgr-1', displayName: 'Manager' },
    },
  ],
  ['an extension listed with nothing set', { schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA], userName: 'listed@answers.example', [ENTERPRISE_SCHEMA]: { department: '' } }],
];

/**
 * The answer to a create is the user as every later read answers it: the same attributes in the same
 * order, `meta` (times, location, version) and the ETag included, on every store.
 */
for (const dialect of dialects) {
  describe(`SCIM create answers [${dialect}]`, () => {
    const { app } = scimAppOnFreshStore(dialect, 'answers');

    const headers = { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' };

    it.each(BODIES)('answers %s as a read of it answers', async (_label, body) => {
      const created = await app().inject({ method: 'POST', url: '/scim/v2/Users', headers, payload: JSON.stringify(body) });
      expect(created.statusCode).toBe(201);
      const id = created.json().id as string;
      const read = await app().inject({ method: 'GET', url: `/scim/v2/Users/${id}`, headers: { authorization: headers.authorization } });
      expect(read.statusCode).toBe(200);
      expect(created.body).toBe(read.body);
      expect(created.headers.etag).toBe(read.headers.etag);
      expect(created.headers['content-type']).toBe(read.headers['content-type']);
      const listed = await app().inject({
        method: 'GET',
        url: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${String(created.json().userName)}"`)}`,
        headers: { authorization: headers.authorization },
      });
      expect(JSON.stringify(listed.json().Resources)).toBe(`[${created.body}]`);
    });
  });
}
