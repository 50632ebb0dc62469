/**
 * The ceiling: a bare Fastify route returning a small JSON object, run as its own process like the
 * service, so the ratio of each route to this shows what collab-host itself costs on this machine.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/ping', { schema: { response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write('ready\n');
