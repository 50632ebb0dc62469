import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';

/** The request log as a person reads it on the terminal: one JSON line each. */
async function logOf(
  production: boolean,
  logLevel: string,
  requests: (app: FastifyInstance) => Promise<unknown>,
): Promise<Array<{ msg: string; level: number; res?: { statusCode: number } }>> {
  const lines: string[] = [];
  const store: OpenDatabase = await openDatabase('sqlite::memory:');
  const app = await buildTestApp(store, { production, logLevel }, { logger: true, logStream: { write: (line) => void lines.push(line) } });
  try {
    await requests(app);
  } finally {
    await app.close();
    await store.close();
  }
  // The request log only: lines about a request carry its reqId (the start's own lines, such as the directory loaded into memory, do not).
  return lines.map((line) => JSON.parse(line) as { msg: string; level: number; reqId?: string }).filter((line) => line.reqId !== undefined);
}

describe('the request log', () => {
  it('in development: nothing for a request that succeeds, one line for one that fails (all of them at debug)', async () => {
    const traffic = async (app: FastifyInstance) => {
      for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/users/current/info' })).statusCode).toBe(401);
    };
    const info = await logOf(false, 'info', traffic);
    expect(info.map((line) => [line.msg, line.res?.statusCode])).toEqual([['request failed', 401]]);
    const debug = await logOf(false, 'debug', traffic);
    expect(debug.filter((line) => line.msg === 'request completed')).toHaveLength(5);
  });

  it('in production: Fastify’s line per request and per response, as before', async () => {
    const lines = await logOf(true, 'info', async (app) => {
      await app.inject({ method: 'GET', url: '/healthz' });
    });
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
  });
});
