import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { mintSignature } from '../src/auth/platform-signature.js';
import { mintUserToken } from '../src/auth/user-token.js';

/** What the scenarios draw their random requests from. */
export interface ScenarioData {
  userIds: string[];
  fileIds: string[];
  departmentIds: string[];
  TOKEN_SECRET: string;
  APP_ID: string;
  APP_SECRET: string;
}

type AutocannonRequest = autocannon.Request;

export interface Scenario {
  name: string;
  requests: AutocannonRequest[];
}

const KEYWORDS = ['王', '李伟', 'wang', 'zhang', 'lw', 'zw', 'James', 'smith', '周报', '计划', 'Budget', 'user12', '研发', 'roadmap'];
const SEARCH_KINDS = 'file_name,recent_contact,collaborator,team_member,department';

/** The routes the issue names, each a random mix of users, files and departments of the company. */
export function buildScenarios(data: ScenarioData): Scenario[] {
  const random = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
  // A pool of real tokens, minted once, like the platform reusing the token it was given per user.
  const tokens = Array.from({ length: 2_000 }, () => {
    const userId = random(data.userIds);
    return { userId, token: mintUserToken(userId, data.TOKEN_SECRET, 3600) };
  });
  const asUser = () => random(tokens);
  const json = { 'content-type': 'application/json' };

  const get = (name: string, path: () => string): Scenario => ({
    name,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: path(), headers: { 'x-platform-token': asUser().token } }),
      },
    ],
  });
  const post = (name: string, path: string, body: (userId: string) => unknown): Scenario => ({
    name,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request) => {
          const { userId, token } = asUser();
          return { ...request, headers: { ...json, 'x-platform-token': token }, body: JSON.stringify(body(userId)) };
        },
      },
    ],
  });

  let sequence = 0;
  const eventKinds = ['Comment', 'MentionAt', 'DateMention', 'FileContent', 'Collaborator', 'Revision'] as const;
  const events: Scenario = {
    name: 'POST /events (mixed kinds)',
    requests: [
      {
        method: 'POST',
        path: '/events',
        setupRequest: (request) => {
          sequence += 1;
          const kind = eventKinds[sequence % eventKinds.length] as (typeof eventKinds)[number];
          const { userId, token } = asUser();
          const fileId = random(data.fileIds);
          const now = Date.now();
          const headers: Record<string, string> = { ...json, 'x-platform-sdk-event': kind };
          if (kind === 'FileContent' || kind === 'Collaborator') {
            headers['x-platform-credential-type'] = '3';
            headers['x-platform-signature'] = mintSignature({ appId: data.APP_ID, appSecret: data.APP_SECRET }, { ttlSeconds: 240, fileId });
          } else {
            headers['x-platform-token'] = token;
          }
          return { ...request, headers, body: JSON.stringify(eventBody(kind, fileId, userId, random(data.userIds), sequence, now)) };
        },
      },
    ],
  };

  return [
    get('GET /files/{fileId}', () => `/files/${random(data.fileIds)}`),
    get('GET /users/current/info', () => '/users/current/info'),
    post('POST /users/batch/get (50 ids)', '/users/batch/get', () => ({ ids: Array.from({ length: 50 }, () => random(data.userIds)) })),
    get('GET /departments/{id}/members', () => `/departments/${random(data.departmentIds)}/members?page=1&pageSize=20`),
    post('POST /search (all kinds)', '/search', () => ({
      fileId: random(data.fileIds),
      keyword: random(KEYWORDS),
      page: 0,
      pageSize: 6,
      type: SEARCH_KINDS,
    })),
    events,
  ];
}

function eventBody(kind: string, fileId: string, userId: string, otherUserId: string, sequence: number, now: number): unknown {
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
