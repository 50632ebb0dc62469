import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { mintSignature } from '../src/auth/platform-signature.js';
import { mintUserToken } from '../src/auth/user-token.js';

/** Who may act on which file: its creator, or a user granted it as editor or manager. */
export interface Actor {
  fileId: string;
  userId: string;
}

/** What the scenarios draw their random requests from. */
export interface ScenarioData {
  userIds: string[];
  fileIds: string[];
  departmentIds: string[];
  /** Pairs for events, so every event is one the platform could really send (bench/README.md). */
  actors: Actor[];
  /** Some user names, for the varied keywords of the open-loop run. */
  userNames: string[];
  /** The team the SCIM run provisions (SCIM_TEAM_ID). */
  teamId: string;
  TOKEN_SECRET: string;
  APP_ID: string;
  APP_SECRET: string;
}

type AutocannonRequest = autocannon.Request;

/** One HTTP request, as the drivers send it. */
export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Scenario {
  name: string;
  requests: AutocannonRequest[];
}

export const KEYWORDS = ['王', '李伟', 'wang', 'zhang', 'lw', 'zw', 'James', 'smith', '周报', '计划', 'Budget', 'user12', '研发', 'roadmap'];
const SEARCH_KINDS = 'file_name,recent_contact,collaborator,team_member,department';
const POOL = 2_000;
const json = { 'content-type': 'application/json' };

const random = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/**
 * The requests of every route, each a random mix of the company's users, files and departments: a pool
 * of real tokens minted once (like the platform reusing the token it was given per user), and a pool of
 * actors with their tokens for events.
 */
export class RequestMaker {
  private readonly tokens: Array<{ userId: string; token: string }>;
  private readonly actors: Array<Actor & { token: string }>;
  private sequence = 0;

  constructor(private readonly data: ScenarioData) {
    this.tokens = Array.from({ length: POOL }, () => {
      const userId = random(data.userIds);
      return { userId, token: mintUserToken(userId, data.TOKEN_SECRET, 3600) };
    });
    this.actors = Array.from({ length: POOL }, () => {
      const actor = random(data.actors);
      return { ...actor, token: mintUserToken(actor.userId, data.TOKEN_SECRET, 3600) };
    });
  }

  openFile(): BenchRequest {
    return { method: 'GET', path: `/files/${random(this.data.fileIds)}`, headers: { 'x-platform-token': random(this.tokens).token } };
  }

  currentUser(): BenchRequest {
    return { method: 'GET', path: '/users/current/info', headers: { 'x-platform-token': random(this.tokens).token } };
  }

  batchUsers(): BenchRequest {
    return this.post('/users/batch/get', random(this.tokens).token, { ids: Array.from({ length: 50 }, () => random(this.data.userIds)) });
  }

  /** A token of the pool: a user of the company's team. */
  viewerToken(): string {
    return random(this.tokens).token;
  }

  departmentMembers(): BenchRequest {
    return { method: 'GET', path: `/departments/${random(this.data.departmentIds)}/members?page=1&pageSize=20`, headers: { 'x-platform-token': random(this.tokens).token } };
  }

  /** All five kinds; `varied`: half the keywords are pieces of real names (many distinct, mostly uncached). */
  search(varied = false): BenchRequest {
    const keyword = varied && Math.random() < 0.5 ? namePiece(random(this.data.userNames)) : random(KEYWORDS);
    return this.post('/search', random(this.tokens).token, { fileId: random(this.data.fileIds), keyword, page: 0, pageSize: 6, type: SEARCH_KINDS });
  }

  /**
   * One event of a mix of kinds, as the platform sends it: its actor may act on the file, token events
   * carry the actor's token with the actor as `userId`, FileContent and Collaborator carry a signature
   * bound to the file.
   */
  event(): BenchRequest {
    this.sequence += 1;
    const kind = EVENT_KINDS[this.sequence % EVENT_KINDS.length] as (typeof EVENT_KINDS)[number];
    const actor = random(this.actors);
    const headers: Record<string, string> = { ...json, 'x-platform-sdk-event': kind };
    if (kind === 'FileContent' || kind === 'Collaborator') {
      headers['x-platform-credential-type'] = '3';
      headers['x-platform-signature'] = mintSignature({ appId: this.data.APP_ID, appSecret: this.data.APP_SECRET }, { ttlSeconds: 240, fileId: actor.fileId });
    } else {
      headers['x-platform-token'] = actor.token;
    }
    const body = eventBody(kind, actor.fileId, actor.userId, random(this.data.userIds), this.sequence, Date.now());
    return { method: 'POST', path: '/events', headers, body: JSON.stringify(body) };
  }

  /** A new user as Okta's first push creates it: POST /scim/v2/Users, a name, an e-mail, active. */
  scimUser(run: string, sequence: number, scimToken: string): BenchRequest {
    const userName = `scim-${run}-${sequence}`;
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName,
      externalId: `okta-${run}-${sequence}`,
      name: { givenName: 'New', familyName: `Hire ${sequence}` },
      displayName: `New Hire ${sequence}`,
      emails: [{ value: `${userName}@example.com`, primary: true }],
      active: true,
    };
    return {
      method: 'POST',
      path: '/scim/v2/Users',
      headers: { 'content-type': 'application/scim+json', authorization: `Bearer ${scimToken}` },
      body: JSON.stringify(body),
    };
  }

  private post(path: string, token: string, body: unknown): BenchRequest {
    return { method: 'POST', path, headers: { ...json, 'x-platform-token': token }, body: JSON.stringify(body) };
  }
}

/** The routes of the table (autocannon), each a random mix built per request. */
export function buildScenarios(maker: RequestMaker): Scenario[] {
  const scenario = (name: string, make: () => BenchRequest): Scenario => ({
    name,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, ...make() }) }],
  });
  return [
    scenario('GET /files/{fileId}', () => maker.openFile()),
    scenario('GET /users/current/info', () => maker.currentUser()),
    scenario('POST /users/batch/get (50 ids)', () => maker.batchUsers()),
    scenario('GET /departments/{id}/members', () => maker.departmentMembers()),
    scenario('POST /search (all kinds)', () => maker.search()),
    scenario('POST /events (mixed kinds)', () => maker.event()),
  ];
}

/** A piece a user would type: the first one to three characters of a name, or of its second word. */
function namePiece(name: string): string {
  const words = name.split(' ');
  const word = words.length > 1 && Math.random() < 0.3 ? (words[1] as string) : (words[0] as string);
  return [...word].slice(0, 1 + Math.floor(Math.random() * 3)).join('');
}

export const EVENT_KINDS = ['Comment', 'MentionAt', 'DateMention', 'FileContent', 'Collaborator', 'Revision'] as const;

export function eventBody(kind: string, fileId: string, userId: string, otherUserId: string, sequence: number, now: number): unknown {
  const guid = randomUUID();
  switch (kind) {
    case 'Comment':
      return {
        kind: 'comment',
        type: 'comment',
        action: 'create',
        fileId,
        userId,
        comment: { guid, content: `评论 ${sequence}`, userIds: [otherUserId], selectionGuid: guid, selectionContent: '选中', selectionTitle: 'sheet1' },
      };
    case 'MentionAt':
      return { kind: 'mention_at', type: 'mention_at', action: 'create', fileId, userId, mentionAt: { guid, userId: otherUserId, content: '请看' } };
    case 'DateMention':
      return {
        kind: 'mention',
        type: 'date_mention',
        action: 'create',
        fileId,
        userId,
        createData: {
          id: guid,
          fileId,
          authorId: userId,
          content: '截止日期',
          remindUserIds: [otherUserId],
          remindAt: new Date(now + 30 * 86400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          positionId: guid,
        },
      };
    case 'FileContent':
      return { kind: 'fileContent', type: 'fileContent', action: 'update', fileId, userId, fileContent: { version: sequence, timestamp: now } };
    case 'Collaborator':
      return { kind: 'collaborator', action: sequence % 2 === 0 ? 'enter' : 'leave', fileId, userId, collaboratorChanged: { clientId: guid, timestamp: now } };
    default:
      return {
        kind: 'revision',
        action: 'create',
        fileId,
        userId,
        revision: { revisionId: sequence, title: `版本 ${sequence}`, label: 'v', docHistoryId: guid, timestamp: now },
      };
  }
}
