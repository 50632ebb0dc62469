import type { ScimConfig } from '../../config/sync.js';
import type { OpenDatabase } from '../../store/connection/database.js';
import { readDepartmentMemberIds, readDepartments, readFileCreators, readTeam, readTeamUsersByEmail, readUsers } from '../../store/directory-writes/directory-state.js';
import { sqlScimResources } from '../../store/directory-writes/scim-resources.js';
import { sqlSyncRuns } from '../../store/sync/sync-runs.js';
import type { DirectoryChanges, DirectoryWriteTurn } from '../../directory-changes/directory-changes.js';
import type { Db } from '../../store/schema/schema.js';
import type { ScimContext, ScimDocument } from './scim-context.js';
import { ScimGroups } from './scim-groups.js';
import { LIST_SCHEMA, ScimProblem, SCIMMY } from './scim-protocol.js';
import { MAX_RESULTS, ScimUsers } from './scim-users.js';

/** `externalId` as /Schemas describes it: set by the client, compared exactly, unique in the team (409 otherwise). */
const EXTERNAL_ID = {
  name: 'externalId',
  type: 'string',
  multiValued: false,
  description: "An identifier of the resource in the client's own system, unique among the team's resources of its kind.",
  required: false,
  caseExact: true,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'server',
};

/** The SCIM service provider of one team: Users, Groups and the discovery resources. */
export class ScimService {
  readonly users: ScimUsers;
  readonly groups: ScimGroups;

  constructor(
    private readonly context: ScimContext,
    /** The same context over a write turn's transaction and changes. */
    private readonly inside: (turn: DirectoryWriteTurn) => ScimContext = () => context,
  ) {
    this.users = new ScimUsers(context);
    this.groups = new ScimGroups(context);
  }

  /**
   * Runs a write (POST, PUT, PATCH, DELETE) whole in the directory's write turn: the resource it reads,
   * patches and writes back is the one stored when the turn began, and no other write (on any instance)
   * commits in between, so concurrent PATCHes each see the others' result. A refusal (a ScimProblem)
   * keeps what the turn recorded of it (the sync run) and rolls back the refused change only.
   */
  async writing<T>(work: (service: ScimService) => Promise<T>): Promise<T> {
    const outcome = await this.context.changes.inTurn(async (turn) => {
      try {
        return { value: await work(new ScimService(this.inside(turn))) };
      } catch (error) {
        if (error instanceof ScimProblem) return { refused: error };
        throw error;
      }
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.value;
  }

  /** RFC 7644 §5: PATCH, filters (at most MAX_RESULTS per page), sorting and ETags (meta.version, If-Match); no bulk or password changes. */
  serviceProviderConfig(): ScimDocument {
    return {
      ...(new SCIMMY.Schemas.ServiceProviderConfig(
        {
          patch: { supported: true },
          bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
          filter: { supported: true, maxResults: MAX_RESULTS },
          changePassword: { supported: false },
          sort: { supported: true },
          etag: { supported: true },
          authenticationSchemes: [{ type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: 'Authorization: Bearer SCIM_TOKEN', primary: true }],
        },
        `${this.context.baseUrl}/ServiceProviderConfig`,
      ) as unknown as ScimDocument),
    };
  }

  resourceTypes(): ScimDocument[] {
    return [SCIMMY.Resources.User, SCIMMY.Resources.Group].map((resource) => ({
      ...(new SCIMMY.Schemas.ResourceType(resource.describe(), `${this.context.baseUrl}/ResourceTypes`) as unknown as ScimDocument),
    }));
  }

  resourceType(name: string): ScimDocument {
    const found = this.resourceTypes().find((type) => type.id === name);
    if (!found) throw new ScimProblem(404, undefined, `no resource type ${name}`);
    return found;
  }

  /** The schemas, each with every attribute the server stores: User and Group also list `externalId` (RFC 7643 §3.1). */
  schemas(): ScimDocument[] {
    return [SCIMMY.Schemas.User, SCIMMY.Schemas.EnterpriseUser, SCIMMY.Schemas.Group].map((schema) => {
      const described = schema.definition.describe(`${this.context.baseUrl}/Schemas`) as ScimDocument & { attributes: Array<{ name: string }> };
      if (schema === SCIMMY.Schemas.EnterpriseUser || described.attributes.some((attribute) => attribute.name === 'externalId')) return { ...described };
      return { ...described, attributes: [EXTERNAL_ID, ...described.attributes] };
    });
  }

  schema(id: string): ScimDocument {
    const found = this.schemas().find((schema) => schema.id === id);
    if (!found) throw new ScimProblem(404, undefined, `no schema ${id}`);
    return found;
  }

  /** A ListResponse of every item (the discovery lists are short). */
  static listOf(resources: ScimDocument[]): ScimDocument {
    return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
  }
}

/** The SCIM service over the store, writing through `changes`; `publicUrl` gives `meta.location`. */
export function scimService(config: ScimConfig, store: OpenDatabase, changes: DirectoryChanges, publicUrl: string, now: () => number = Date.now): ScimService {
  const over = (db: Db, turnChanges: DirectoryChanges) => scimContext(config, db, turnChanges, publicUrl, now);
  return new ScimService(over(store.db, changes), (turn) => over(turn.db, turn.changes));
}

function scimContext(config: ScimConfig, db: Db, changes: DirectoryChanges, publicUrl: string, now: () => number): ScimContext {
  return {
    teamId: config.teamId,
    teamName: config.teamName,
    baseUrl: `${publicUrl}/scim/v2`,
    resources: sqlScimResources(db),
    changes,
    runs: sqlSyncRuns(db),
    directory: {
      users: (ids) => readUsers(db, ids),
      fileCreators: (ids) => readFileCreators(db, ids),
      usersByEmail: (teamId, email) => readTeamUsersByEmail(db, teamId, email),
      department: async (id) => (await readDepartments(db, [id]))[0],
      departmentMembers: (id) => readDepartmentMemberIds(db, id),
      team: (id) => readTeam(db, id),
    },
    now,
  };
}
