import { excerpt } from './http-client.js';
import { isRecord } from './jwt.js';
import { query, seg, type Probe } from './probe.js';

/** A file as seen in a list: enough to pick the files the checks look at. */
export interface SeenFile {
  id: string;
  type: string;
  creatorId?: string;
}

/** What the kit learned about the server's world through the callbacks themselves. */
export interface Discovered {
  userId: string;
  userName: string;
  /** `teamGuid` of `GET /users/current/info`, when returned. */
  teamGuid: string | undefined;
  /** The team of `GET /users/current/team`, else `teamGuid`. */
  teamId: string | undefined;
  /** Files of `GET /files` (most recently updated first), with the one of --file-id in front. */
  files: SeenFile[];
  /** The collaborative document under test (type other than `file`). */
  fileId: string | undefined;
  /** A third-party file (type `file`) for the preview shape, when one is visible. */
  previewFileId: string | undefined;
}

export class DiscoveryError extends Error {
  override name = 'DiscoveryError';
}

/** Finds the current user, their team and some files; fails only when the current user cannot be read. */
export async function discover(probe: Probe): Promise<Discovered> {
  const info = await probe.read('/users/current/info');
  if (info.status !== 200 || !isRecord(info.body) || typeof info.body.id !== 'string') {
    throw new DiscoveryError(`GET /users/current/info answered ${info.status}${excerpt(info.text)}: the kit cannot act as the token's user`);
  }
  const teamGuid = typeof info.body.teamGuid === 'string' && info.body.teamGuid !== '' ? info.body.teamGuid : undefined;
  const team = await probe.read('/users/current/team');
  const teamId = team.status === 200 && isRecord(team.body) && typeof team.body.id === 'string' ? team.body.id : teamGuid;

  const files: SeenFile[] = [];
  const given = probe.options.fileId;
  if (given !== undefined) {
    const answer = await probe.read(`/files/${seg(given)}`);
    const type = isRecord(answer.body) && typeof answer.body.type === 'string' ? answer.body.type : 'unknown';
    files.push({ id: given, type });
  }
  const collect = (body: unknown): void => {
    if (!Array.isArray(body)) return;
    for (const item of body) {
      if (!isRecord(item) || typeof item.id !== 'string' || files.some((f) => f.id === item.id)) continue;
      const creator = typeof item.creatorId === 'string' ? { creatorId: item.creatorId } : {};
      files.push({ id: item.id, type: typeof item.type === 'string' ? item.type : 'unknown', ...creator });
    }
  };
  const recent = await probe.read(`/files${query({ limit: 50, orderBy: 'updated_at' })}`);
  if (recent.status === 200) collect(recent.body);
  const anchor = files[0]?.id;
  if (anchor !== undefined) {
    const mentioned = await probe.read(`/search/files/recent${query({ fileId: anchor })}`);
    if (mentioned.status === 200) collect(mentioned.body);
  }
  return {
    userId: info.body.id,
    userName: typeof info.body.name === 'string' ? info.body.name : info.body.id,
    teamGuid,
    teamId,
    files,
    fileId: files.find((f) => f.type !== 'file')?.id,
    previewFileId: files.find((f) => f.type === 'file')?.id,
  };
}
