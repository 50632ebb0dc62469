import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inboundResource } from '../../src/sync/scim/scim-inbound.js';
import { normaliseResource, SCIMMY, scimmy, ScimProblem } from '../../src/sync/scim/scim-protocol.js';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './scim-client.js';

/** What a client would get: the resource as stored (plain JSON), or the problem's status, type and text. */
type Outcome = { value: unknown } | { problem: { status: number; scimType: string | undefined; message: string } } | { thrown: string };

function outcome(validate: () => unknown): Outcome {
  try {
    return { value: JSON.parse(JSON.stringify(validate())) as unknown };
  } catch (error) {
    if (error instanceof ScimProblem) return { problem: { status: error.status, scimType: error.scimType, message: error.message } };
    return { thrown: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** The reference: scimmy's own instance, read as the create path read it before (`{ ...instance }`). */
const viaInstance = (body: unknown) => outcome(() => ({ ...(scimmy(() => new SCIMMY.Schemas.User(normaliseResource(body) as object, 'in')) as object) }));
const viaDefinition = (body: unknown) => outcome(() => scimmy(() => inboundResource(SCIMMY.Schemas.User, normaliseResource(body))));

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', ' ', 'Ada', 'ada@example.com', '2026-11-27T10:00:00Z', 'True', 'false'));
const scalar = fc.oneof(text, fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null), fc.double({ noNaN: true }));
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.constantFrom('value', 'display', 'x'), scalar, { maxKeys: 2 }));
const multi = (item: fc.Arbitrary<unknown>) => fc.oneof(fc.array(item, { maxLength: 3 }), item, fc.constant(null));
const typed = (types: string[]) =>
  fc.record(
    { value: fc.oneof(text, scalar), type: fc.oneof(fc.constantFrom(...types), text), primary: fc.oneof(fc.boolean(), fc.constantFrom('True', 'False', 'yes')), display: text },
    { requiredKeys: [] },
  );
const enterprise = fc.record(
  {
    employeeNumber: fc.oneof(text, value),
    department: fc.oneof(text, value),
    costCenter: text,
    manager: fc.oneof(text, fc.record({ value: fc.oneof(text, scalar), displayName: text }, { requiredKeys: [] }), fc.constant({}), fc.constant(null)),
  },
  { requiredKeys: [] },
);

/** User bodies as identity providers send them, and broken ones: wrong types, unknown keys, case variants, nulls. */
const userBody = fc.record(
  {
    schemas: fc.oneof(fc.constantFrom([USER_SCHEMA], [USER_SCHEMA, ENTERPRISE_SCHEMA], [ENTERPRISE_SCHEMA], [], [GROUP_SCHEMA], [USER_SCHEMA, 'urn:other']), value),
    userName: fc.oneof(text, scalar, value),
    UserName: text,
    externalId: fc.oneof(text, scalar),
    id: text,
    displayName: fc.oneof(text, scalar),
    name: fc.oneof(fc.record({ givenName: fc.oneof(text, scalar), familyName: text, formatted: text }, { requiredKeys: [] }), value),
    active: fc.oneof(fc.boolean(), fc.constantFrom('True', 'False', 'TRUE', 'maybe'), scalar),
    emails: multi(typed(['work', 'home', 'other'])),
    phoneNumbers: multi(typed(['work', 'mobile'])),
    ims: multi(typed(['wecom', 'dingtalk', 'slack', 'aim', 'bogus'])),
    password: text,
    title: fc.oneof(text, scalar),
    meta: fc.oneof(fc.record({ created: text, resourceType: text }, { requiredKeys: [] }), value),
    [ENTERPRISE_SCHEMA]: fc.oneof(enterprise, value),
    [`${ENTERPRISE_SCHEMA}:department`]: fc.oneof(text, scalar),
    [`${ENTERPRISE_SCHEMA}:manager`]: fc.oneof(text, scalar),
    [`${ENTERPRISE_SCHEMA.toLowerCase()}:employeeNumber`]: text,
    unknownAttribute: value,
  },
  { requiredKeys: [] },
);

/** Bodies as an identity provider's first push sends them (mostly valid), with the odd unusual value. */
const word = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('Ada', 'ada@example.com', ' x '));
const providerBody = fc.record(
  {
    schemas: fc.constantFrom([USER_SCHEMA], [USER_SCHEMA, ENTERPRISE_SCHEMA]),
    userName: word,
    externalId: word,
    displayName: word,
    name: fc.record({ givenName: word, familyName: word, formatted: word }, { requiredKeys: [] }),
    active: fc.oneof(fc.boolean(), fc.constantFrom('True', 'False')),
    emails: fc.array(fc.record({ value: word, type: fc.constantFrom('work', 'home'), primary: fc.boolean() }, { requiredKeys: ['value'] }), { maxLength: 2 }),
    phoneNumbers: fc.array(fc.record({ value: word, type: fc.constantFrom('work', 'mobile') }), { maxLength: 2 }),
    ims: fc.array(fc.record({ value: word, type: fc.constantFrom('wecom', 'dingtalk', 'slack') }), { maxLength: 2 }),
    title: word,
    [ENTERPRISE_SCHEMA]: enterprise,
    [`${ENTERPRISE_SCHEMA}:department`]: word,
  },
  { requiredKeys: ['userName'] },
);

describe('a SCIM create reads its body as scimmy validates it', () => {
  it('gives what the scimmy instance gives, value or problem, for any body', () => {
    const seen = { value: 0, problem: 0 };
    fc.assert(
      fc.property(fc.oneof(providerBody, userBody), (body) => {
        const expected = viaInstance(body);
        expect(viaDefinition(body)).toEqual(expected);
        if ('value' in expected) seen.value += 1;
        if ('problem' in expected) seen.problem += 1;
      }),
      { numRuns: 3_000 },
    );
    // Both kinds of answer were compared, not only one.
    expect(seen.value).toBeGreaterThan(600);
    expect(seen.problem).toBeGreaterThan(300);
  });

  it('keeps the stored JSON byte for byte, key order included (the version is its digest)', () => {
    fc.assert(
      fc.property(fc.oneof(providerBody, userBody), (body) => {
        const fast = viaDefinition(body);
        if ('value' in fast) expect(JSON.stringify(fast.value)).toBe(JSON.stringify((viaInstance(body) as { value: unknown }).value));
      }),
      { numRuns: 1_000 },
    );
  });

  it('answers bodies that are not objects as the instance does', () => {
    for (const body of [null, undefined, [], 'text', 42, true, {}, { schemas: 'x' }]) expect(viaDefinition(body), JSON.stringify(body)).toEqual(viaInstance(body));
  });

  it('takes an empty enterprise extension out of the schemas and the resource', () => {
    const body = { schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA], userName: 'ada', [ENTERPRISE_SCHEMA]: { manager: {} } };
    const { value } = viaDefinition(body) as { value: Record<string, unknown> };
    expect(value.schemas).toEqual([USER_SCHEMA]);
    expect(value).not.toHaveProperty([ENTERPRISE_SCHEMA]);
    expect(viaInstance(body)).toEqual({ value });
  });

  it('refuses a body of another resource type with invalidSyntax, as scimmy does', () => {
    expect(viaDefinition({ schemas: [GROUP_SCHEMA], displayName: 'x' })).toEqual({
      problem: { status: 400, scimType: 'invalidSyntax', message: 'The request body supplied a schema type that is incompatible with this resource' },
    });
  });
});
