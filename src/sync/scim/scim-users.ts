import { randomUUID } from 'node:crypto';
import { firstLanguageTag } from '../../directory/language-tag.js';
import { IM_KINDS, type ImIds, type ImKind } from '../../directory/types.js';
import type { UserRecord } from '../../directory-changes/records.js';
import type { UserState } from '../../store/directory-writes/directory-state.js';
import type { ScimResourceRow } from '../../store/directory-writes/scim-resources.js';
import {
  applyChange,
  assertExternalIdFree,
  checkIfMatch,
  externalIdTaken,
  equalityOf,
  listPage,
  metaOf,
  missingTeam,
  nowText,
  versionIn,
  versionOf,
  type ScimContext,
  type ScimDocument,
  type ScimObject,
} from './scim-context.js';
import { answerOf } from './scim-answer.js';
import { inboundResource } from './scim-inbound.js';
import { assertStorable } from './scim-input.js';
import {
  asScimProblem,
  mapInSlices,
  matchFilter,
  normalisePatch,
  normaliseResource,
  parseQuery,
  ScimProblem,
  scimmy,
  SCIMMY,
  sortResources,
  withoutUnset,
  type ListQuery,
} from './scim-protocol.js';

type AttributeFilter = ReturnType<typeof parseQuery>['attributes'];

export const MAX_RESULTS = 200;
const ENTERPRISE = SCIMMY.Schemas.EnterpriseUser.id;

/** The user's name as collab-host shows it: displayName, else name.formatted, else family and given name, else userName. */
function displayNameOf(user: ScimObject): string {
  const name = (user.name ?? {}) as { formatted?: string; familyName?: string; givenName?: string };
  if (typeof user.displayName === 'string' && user.displayName.trim() !== '') return user.displayName.trim();
  if (name.formatted?.trim()) return name.formatted.trim();
  const family = name.familyName?.trim() ?? '';
  const given = name.givenName?.trim() ?? '';
  // 张 + 三 reads 张三; Ada + Lovelace reads "Ada Lovelace".
  const cjk = /[\u3400-\u9fff]/.test(family + given);
  const full = cjk ? `${family}${given}` : [given, family].filter((part) => part !== '').join(' ');
  return full !== '' ? full : String(user.userName).trim();
}

/** The primary (else first) value of a multi-valued attribute such as `emails`. */
function primaryValue(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const values = list as Array<{ value?: unknown; primary?: unknown }>;
  const chosen = values.find((item) => item?.primary === true) ?? values[0];
  return typeof chosen?.value === 'string' && chosen.value.trim() !== '' ? chosen.value.trim() : undefined;
}

/**
 * A person's IM ids from SCIM's `ims` (RFC 7643 §4.1.2), by `type`: `wecom`, `dingtalk`, `feishu`,
 * `slack` (added to the schema's canonical types). Undefined when `ims` names none of them.
 */
function imIdsOf(list: unknown): ImIds | undefined {
  if (!Array.isArray(list)) return undefined;
  const ids: ImIds = {};
  for (const item of list as Array<{ type?: unknown; value?: unknown }>) {
    const kind = typeof item?.type === 'string' ? item.type.trim().toLowerCase() : '';
    const value = typeof item?.value === 'string' ? item.value.trim() : '';
    if ((IM_KINDS as readonly string[]).includes(kind) && value !== '' && value.length <= 255) ids[kind as ImKind] = value;
  }
  return Object.keys(ids).length > 0 ? ids : undefined;
}

/**
 * SCIM Users of the configured team. A user's SCIM `id` is their collab-host user id, issued here: a new
 * resource gets a new random UUID that is never given to anyone else (RFC 7643 §3.1), so a leaver's
 * tokens, comments and mentions never pass to a later holder of their `userName`. `userName` is unique
 * among the team's current SCIM users, case-insensitively; a rename or a delete frees it. An active user
 * already in the team with the same e-mail and no SCIM resource (from a snapshot, say) is taken over,
 * keeping their id, rather than duplicated; a deactivated one (a leaver) never is.
 */
export class ScimUsers {
  constructor(private readonly context: ScimContext) {}

  async list(query: ListQuery): Promise<ScimDocument> {
    const { filter, attributes, sort } = parseQuery('User', query);
    const userName = equalityOf(filter, 'userName');
    const externalId = equalityOf(filter, 'externalId');
    const rows = await this.context.resources.list(this.context.teamId, 'User', {
      ...(userName === undefined ? {} : { nameKey: userName.trim().toLowerCase() }),
      ...(externalId === undefined ? {} : { externalId }),
    });
    let resources = await this.represent(rows);
    if (filter) resources = await matchFilter(filter, resources);
    const page = listPage(sortResources(resources, sort), query, MAX_RESULTS);
    return { ...page, Resources: await mapInSlices(page.Resources as ScimObject[], (resource) => this.shape(resource, attributes)) };
  }

  async get(id: string, query: ListQuery = {}): Promise<ScimDocument> {
    const { attributes } = parseQuery('User', query);
    return this.shape((await this.represent([await this.row(id)]))[0]!, attributes);
  }

  async create(body: unknown): Promise<ScimDocument> {
    // The validated input as plain data, as it will be stored (scimmy's multi-valued values are proxies;
    // this reads them once). What `{ ...new SCIMMY.Schemas.User(body, 'in') }` gives, without its cost.
    const user = JSON.parse(JSON.stringify(scimmy(() => inboundResource(SCIMMY.Schemas.User, normaliseResource(body))))) as ScimObject;
    assertStorable('User', user);
    const nameKey = String(user.userName).trim().toLowerCase();
    if (nameKey === '') throw new ScimProblem(400, 'invalidValue', 'userName must not be empty');
    const externalId = typeof user.externalId === 'string' ? user.externalId : undefined;
    const holders = await this.context.resources.holders(this.context.teamId, 'User', { nameKey, externalId });
    if (holders.byName.length > 0) throw new ScimProblem(409, 'uniqueness', `a user with userName "${String(user.userName)}" exists`);
    if (holders.byExternalId.length > 0) throw externalIdTaken('User');
    const existing = await this.userToTakeOver(this.record(nameKey, user, undefined, true).email);
    const id = existing?.id ?? randomUUID();
    const now = nowText(this.context);
    const row = this.rowOf(id, user, now, now);
    // The resource first: it holds the userName (a unique key), so of two creates at once one wins.
    if (!(await this.context.resources.create(row))) {
      throw new ScimProblem(409, 'uniqueness', `a user with userName "${String(user.userName)}" exists`);
    }
    try {
      await applyChange(this.context, 'POST /Users', {
        upsert: { teams: await missingTeam(this.context), users: [this.record(id, user, existing, user.active !== false)] },
      });
    } catch (error) {
      await this.context.resources.remove('User', id);
      throw error;
    }
    // Answered from the validated input: the resource as stored, `active` as just written.
    return answerOf(SCIMMY.Schemas.User.definition, this.representation(row, user.active !== false), `${this.context.baseUrl}/Users`) as ScimDocument;
  }

  /**
   * The directory user a new SCIM user becomes: an active user of the team with the same e-mail that no
   * SCIM resource holds (a snapshot's user, so their files and grants stay theirs). A deactivated user is a
   * leaver (deleted through SCIM, or left in a snapshot): a new hire with their e-mail is a new person.
   */
  private async userToTakeOver(email: string | undefined) {
    if (email === undefined) return undefined;
    const sameEmail = (await this.context.directory.usersByEmail(this.context.teamId, email)).filter((user) => user.active);
    const linked = new Set(
      (
        await this.context.resources.getMany(
          this.context.teamId,
          'User',
          sameEmail.map((user) => user.id),
        )
      ).map((row) => row.id),
    );
    return sameEmail.find((user) => !linked.has(user.id));
  }

  async replace(id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
    const old = await this.row(id);
    if (ifMatch !== undefined) checkIfMatch(ifMatch, versionIn((await this.represent([old]))[0]!));
    const user = scimmy(() => new SCIMMY.Schemas.User(normaliseResource(body), 'in')) as unknown as ScimObject;
    return this.write(old, user, `PUT /Users/${id}`);
  }

  async patch(id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
    const old = await this.row(id);
    const [current] = await this.represent([old]);
    checkIfMatch(ifMatch, versionIn(current!));
    let written: ScimDocument | undefined;
    const message = scimmy(() => new SCIMMY.Messages.PatchOp(normalisePatch(body) as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]));
    try {
      await message.apply(new SCIMMY.Schemas.User(current, 'out'), async (patched) => {
        const user = scimmy(() => new SCIMMY.Schemas.User({ ...patched }, 'in')) as unknown as ScimObject;
        written = await this.write(old, user, `PATCH /Users/${id}`);
        return { ...written };
      });
    } catch (error) {
      throw asScimProblem(error);
    }
    return written ?? this.shape(current!, undefined);
  }

  /**
   * Removes the user; one who created files is deactivated instead and keeps them (their files need
   * their creator). Either way the SCIM resource is gone: a GET answers 404, the `userName` is free, and a
   * later POST with it creates a new person with a new id (the leaver stays locked out).
   */
  async remove(id: string, ifMatch?: string): Promise<void> {
    const row = await this.row(id);
    if (ifMatch !== undefined) checkIfMatch(ifMatch, versionIn((await this.represent([row]))[0]!));
    const creators = await this.context.directory.fileCreators([row.id]);
    const [user] = await this.context.directory.users([row.id]);
    if (user && creators.has(row.id)) {
      await applyChange(this.context, `DELETE /Users/${id} (created files: deactivated)`, { upsert: { users: [{ ...user, active: false }] } });
    } else if (user) {
      await applyChange(this.context, `DELETE /Users/${id}`, { remove: { users: [row.id] } });
    }
    await this.context.resources.remove('User', row.id);
  }

  private async write(old: ScimResourceRow, user: ScimObject, detail: string): Promise<ScimDocument> {
    assertStorable('User', user);
    const nameKey = String(user.userName).trim().toLowerCase();
    if (nameKey === '') throw new ScimProblem(400, 'invalidValue', 'userName must not be empty');
    if (nameKey !== old.nameKey && (await this.context.resources.list(this.context.teamId, 'User', { nameKey })).length > 0) {
      throw new ScimProblem(409, 'uniqueness', `a user with userName "${String(user.userName)}" exists`);
    }
    await assertExternalIdFree(this.context, 'User', user.externalId, old.id);
    const [current] = await this.context.directory.users([old.id]);
    // PUT without `active` keeps the state; only an explicit false deactivates.
    const active = user.active === undefined ? (current?.active ?? true) : user.active !== false;
    await applyChange(this.context, detail, { upsert: { teams: await missingTeam(this.context), users: [this.record(old.id, user, current, active)] } });
    const row = this.rowOf(old.id, user, old.createdAt, nowText(this.context));
    await this.context.resources.put(row);
    return this.shape((await this.represent([row]))[0]!, undefined);
  }

  /**
   * The directory record of a SCIM user. Memberships come from Groups, so the current ones stay; so do a
   * watermark (SCIM has none), and an avatar, a language and IM ids when the client sends none.
   */
  private record(id: string, user: ScimObject, current: UserState | undefined, active: boolean): UserRecord & { active: boolean } {
    const email = primaryValue(user.emails) ?? (/^[^@\s]+@[^@\s]+$/.test(String(user.userName)) ? String(user.userName).trim() : undefined);
    const photo = primaryValue(user.photos);
    const avatar = photo && /^https?:\/\//i.test(photo) ? photo : current?.avatar;
    // The language and IM ids of the person's notices (docs/notifications.md); kept when not sent.
    const locale = firstLanguageTag(user.preferredLanguage) ?? firstLanguageTag(user.locale) ?? current?.locale;
    const im = imIdsOf(user.ims) ?? current?.im;
    return {
      id,
      name: displayNameOf(user).slice(0, 500),
      ...(email ? { email: email.slice(0, 500) } : {}),
      ...(avatar ? { avatar } : {}),
      ...(locale ? { locale } : {}),
      ...(im ? { im } : {}),
      teamId: this.context.teamId,
      departmentIds: current?.departmentIds ?? [],
      ...(current?.watermark ? { watermark: current.watermark } : {}),
      active,
    };
  }

  private rowOf(id: string, user: ScimObject, createdAt: string, updatedAt: string): ScimResourceRow {
    const attributes: ScimObject = { ...user };
    delete attributes.id;
    delete attributes.meta;
    delete attributes.active; // read from the directory, the one truth
    delete attributes.groups; // read-only: memberships come from Groups
    // Write-only (RFC 7643 §4.1) and never used here: not kept, so no store, backup or log holds it.
    delete attributes.password;
    return {
      kind: 'User',
      id,
      teamId: this.context.teamId,
      nameKey: String(user.userName).trim().toLowerCase(),
      externalId: typeof user.externalId === 'string' ? user.externalId : null,
      attributes,
      createdAt,
      updatedAt,
    };
  }

  private async row(id: string): Promise<ScimResourceRow> {
    const row = await this.context.resources.get('User', id);
    if (!row || row.teamId !== this.context.teamId) throw new ScimProblem(404, undefined, `no user ${id}`);
    return row;
  }

  /** Full representations (before attribute selection), `active` from the directory. */
  private async represent(rows: ScimResourceRow[]): Promise<ScimObject[]> {
    const users = new Map((await this.context.directory.users(rows.map((row) => row.id))).map((user) => [user.id, user]));
    return rows.map((row) => this.representation(row, users.get(row.id)?.active ?? false));
  }

  /** The full representation of a stored resource whose directory user is `active` (or not). */
  private representation(row: ScimResourceRow, active: boolean): ScimObject {
    const data: ScimObject = { ...row.attributes, id: row.id, meta: { ...metaOf(this.context, row), version: versionOf([row.attributes, row.updatedAt, active]) }, active };
    const schemas = new Set((data.schemas as string[] | undefined) ?? []);
    if (data[ENTERPRISE] !== undefined) schemas.add(ENTERPRISE);
    data.schemas = [SCIMMY.Schemas.User.id, ...[...schemas].filter((schema) => schema !== SCIMMY.Schemas.User.id)];
    return data;
  }

  /** The resource as answered (a scimmy schema instance; attributes selected when asked). */
  private shape(resource: ScimObject, attributes: AttributeFilter): ScimDocument {
    // Unset attributes are left out of answers (no `"emails":[{"value":""}]`).
    const shaped = withoutUnset(scimmy(() => new SCIMMY.Schemas.User(resource, 'out', `${this.context.baseUrl}/Users`, attributes)) as unknown as ScimDocument);
    // A resource always names its schemas (RFC 7643 §3), whatever `attributes` selected.
    return attributes === undefined ? shaped : { ...shaped, schemas: resource.schemas as string[] };
  }
}
