import type { FastifyInstance } from 'fastify';
import fc, { type Arbitrary } from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { hostileString } from '../fuzz/schema-arbitrary.js';
import { GROUP_SCHEMA, PATCH_OP, SCIM_TOKEN, scimConfig, USER_SCHEMA } from './scim-client.js';

/**
 * The SCIM routes driven with hostile filters, attribute lists, sort keys, PATCH paths, body keys and
 * values (prototype names among them) on both stores: never a 5xx, always SCIM's error schema without an
 * engine's error text, nothing written by a refused request, no object's prototype touched. Fixed seed
 * and bounded runs (FUZZ_SEED, FUZZ_RUNS override them).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const RUNTIME_TEXT = /is not a function|Cannot read|Cannot convert|TypeError|RangeError|\.split|tokens\[/;

const RESERVED = ['__proto__', 'constructor', 'prototype', '__proto__.x', 'constructor.prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const NAMES = [
  'userName',
  'displayName',
  'emails',
  'emails.value',
  'name.givenName',
  'members',
  'members.value',
  'externalId',
  'active',
  'meta.created',
  'id',
  `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager`,
  ...RESERVED,
];
const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: hostileString });
const operator = fc.constantFrom('eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr', 'EQ', 'xx', '');
const literal = fc.oneof(
  hostileString.map((text) => JSON.stringify(text)),
  fc.constantFrom('true', 'False', 'null', '5', 'NaN', '"', '"\\', '1e400', '[]'),
);

/** Filters: mostly well-formed expressions, with hostile names, operators, values and punctuation. */
const filter: Arbitrary<string> = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(name, operator, literal).map(([path, op, value]) => (op === 'pr' ? `${path} pr` : `${path} ${op} ${value}`)),
    fc.tuple(tie('filter'), fc.constantFrom('and', 'or', 'AND', 'nor'), tie('filter')).map(([left, join, right]) => `${left} ${join} ${right}`),
    tie('filter').map((inner) => `not (${inner})`),
    fc.tuple(name, tie('filter')).map(([path, inner]) => `${path}[${inner}]`),
    fc.constantFrom('(', ')', '[', ']', '5', 'NaN', '', ' ', 'userName eq', '(((('),
  ),
})).filter;

const attributeList = fc.array(name, { minLength: 1, maxLength: 4 }).map((names) => names.join(','));

const scalar = fc.oneof(hostileString, fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('True', 'False', ''));
/** Objects whose keys include the prototype names: written raw, since JSON.stringify drops `__proto__` set by assignment. */
const hostileJson: Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar.map((value) => JSON.stringify(value)),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(name, tie('value')), { maxLength: 3 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value;

const operation = fc
  .tuple(
    fc.constantFrom('add', 'replace', 'remove', 'Replace', 'ADD', 'move'),
    fc.option(
      fc.oneof(
        name,
        filter.map((inner) => `emails[${inner}].value`),
      ),
      { nil: undefined },
    ),
    hostileJson,
  )
  .map(([op, path, value]) => `{"op":${JSON.stringify(op)}${path === undefined ? '' : `,"path":${JSON.stringify(path)}`},"value":${value}}`);

/**
 * A query value percent-encoded; a lone surrogate (which has no UTF-8) is sent as the three bytes a
 * careless client would encode it as (`%ED%A0%80`): invalid UTF-8 the server must refuse or read as text.
 */
function encodeQueryValue(text: string): string {
  return text
    .split(/([\uD800-\uDFFF])/u)
    .map((part, index) => {
      if (index % 2 === 0) return encodeURIComponent(part);
      const code = part.charCodeAt(0);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    })
    .join('');
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  payload?: string;
}

describeEachStore('fuzz: SCIM paths, filters and bodies', (store) => {
  let app: FastifyInstance;
  let userId: string;
  let groupId: string;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), scimConfig('fuzzco'));
    const headers = { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' };
    for (const userName of ['one@fuzz.example', 'two@fuzz.example']) {
      const created = await app.inject({
        method: 'POST',
        url: '/scim/v2/Users',
        headers,
        payload: JSON.stringify({ schemas: [USER_SCHEMA], userName, emails: [{ value: userName }] }),
      });
      userId = created.json().id;
    }
    groupId = (
      await app.inject({
        method: 'POST',
        url: '/scim/v2/Groups',
        headers,
        payload: JSON.stringify({ schemas: [GROUP_SCHEMA], displayName: 'Fuzzers', members: [{ value: userId }] }),
      })
    ).json().id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('never answers 5xx, refuses in SCIM error schema in our words, writes nothing when refusing, pollutes nothing', { timeout: 300_000 }, async () => {
    const query = (path: string) =>
      fc
        .record(
          {
            filter: fc.option(filter, { nil: undefined }),
            attributes: fc.option(attributeList, { nil: undefined }),
            excludedAttributes: fc.option(attributeList, { nil: undefined }),
            sortBy: fc.option(name, { nil: undefined }),
          },
          { requiredKeys: [] },
        )
        .map((parameters): Call => ({
          method: 'GET',
          url: `${path}?${Object.entries(parameters)
            .filter(([, value]) => value !== undefined)
            .map(([key, value]) => `${key}=${encodeQueryValue(value!)}`)
            .join('&')}`,
        }));
    const call: Arbitrary<Call> = fc.oneof(
      query('/Users'),
      query('/Groups'),
      fc
        .array(operation, { minLength: 0, maxLength: 4 })
        .chain((operations) =>
          fc
            .constantFrom(`/Users/${encodeURIComponent(userId)}`, `/Groups/${groupId}`)
            .map((url): Call => ({ method: 'PATCH', url, payload: `{"schemas":["${PATCH_OP}"],"Operations":[${operations.join(',')}]}` })),
        ),
      hostileJson.map((payload): Call => ({ method: 'POST', url: '/Users', payload })),
      hostileJson.map((payload): Call => ({ method: 'PUT', url: `/Users/${encodeURIComponent(userId)}`, payload })),
      hostileJson.map((payload): Call => ({ method: 'POST', url: '/Groups', payload })),
    );
    await fc.assert(
      fc.asyncProperty(call, async ({ method, url, payload }) => {
        const before = JSON.stringify(await exportSnapshot(store().db));
        const response = await app.inject({
          method,
          url: `/scim/v2${url}`,
          headers: { authorization: `Bearer ${SCIM_TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/scim+json' }) },
          ...(payload === undefined ? {} : { payload }),
        });
        const where = `${method} ${url} ${payload ?? ''} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        expect(response.statusCode, where).toBeLessThan(500);
        expect(({} as Record<string, unknown>).x, where).toBeUndefined();
        expect(typeof Object.prototype.hasOwnProperty, where).toBe('function');
        if (response.statusCode >= 400) {
          const body = response.json() as { schemas?: unknown; detail?: unknown; error?: { code?: unknown } };
          expect(body.schemas, where).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
          expect(typeof body.error?.code, where).toBe('string');
          expect(String(body.detail), where).not.toMatch(RUNTIME_TEXT);
          expect(JSON.stringify(await exportSnapshot(store().db)), `${where}: a refused request changed the directory`).toBe(before);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
