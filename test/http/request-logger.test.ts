import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loggerOptions, requestLogger } from '../../src/http/logger.js';

/** An app logging as collab-host's does, with one route that logs through `request.log`. */
async function appLogging(level: string, lines: string[]) {
  const app = Fastify({ logger: loggerOptions(level, { write: (line) => void lines.push(line) }), childLoggerFactory: requestLogger });
  app.get('/log', async (request) => {
    request.log.debug({ step: 'debug' }, 'a debug line');
    request.log.warn({ config: { appSecret: 'the-secret' }, headers: { authorization: 'Bearer x' } }, 'a warning');
    request.log.child({ part: 'inner' }).error('from a child');
    return { level: request.log.level };
  });
  app.get('/quiet', { logLevel: 'error' }, async (request) => {
    request.log.warn('not written: the route logs errors only');
    request.log.error('written');
    return {};
  });
  await app.ready();
  return app;
}

describe("a request's logger", () => {
  it('writes the lines of a level that is on, with the request id, redacted as every line is', async () => {
    const lines: string[] = [];
    const app = await appLogging('warn', lines);
    const response = await app.inject({ method: 'GET', url: '/log' });
    await app.close();
    expect(response.json()).toEqual({ level: 'warn' });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((line) => line.msg)).toEqual(['a warning', 'from a child']);
    const [warning, fromChild] = logged;
    expect(typeof warning!.reqId).toBe('string');
    expect(warning!.config).toEqual({ appSecret: '[redacted]' });
    expect(JSON.stringify(warning)).not.toContain('the-secret');
    expect(fromChild).toMatchObject({ reqId: warning!.reqId, part: 'inner', level: 50 });
  });

  it('writes debug lines when the level is debug', async () => {
    const lines: string[] = [];
    const app = await appLogging('debug', lines);
    await app.inject({ method: 'GET', url: '/log' });
    await app.close();
    const messages = lines.map((line) => JSON.parse(line) as { msg: string; reqId?: string; step?: string });
    // Fastify's own request lines come from the request's logger too.
    expect(messages.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toHaveLength(2);
    expect(messages.find((line) => line.msg === 'a debug line')).toMatchObject({ step: 'debug', reqId: expect.any(String) });
  });

  it("follows a route's own log level", async () => {
    const lines: string[] = [];
    const app = await appLogging('info', lines);
    await app.inject({ method: 'GET', url: '/quiet' });
    await app.close();
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => !/request/.test(msg))).toEqual(['written']);
  });
});
