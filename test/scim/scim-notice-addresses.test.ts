import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { notifyLookups } from '../../src/store/notify/notify-lookups.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

describeEachStore("SCIM writes a person's language and IM ids, which their notices use", (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(store(), scimConfig('noticeco'));
  });
  afterAll(async () => {
    await app.close();
  });

  const person = async (id: string) => (await notifyLookups.people(store().db, [id])).get(id);

  it('takes preferredLanguage (first tag of a list) and the ims of the IMs collab-host posts to; keeps them when a write sends none', async () => {
    const created = await scim(app, 'POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'mei@notice.example',
      preferredLanguage: 'en-US, zh-CN;q=0.5',
      ims: [
        { type: 'wecom', value: 'HanMeiMei' },
        { type: 'slack', value: 'U012AB3CD' },
        { type: 'skype', value: 'mei.skype' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(await person(id)).toMatchObject({ locale: 'en-US', im: { wecom: 'HanMeiMei', slack: 'U012AB3CD' } });
    expect(created.body.ims).toHaveLength(3); // SCIM answers what it was sent

    const renamed = await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'displayName', value: 'Han Meimei' }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await person(id)).toMatchObject({ name: 'Han Meimei', locale: 'en-US', im: { wecom: 'HanMeiMei', slack: 'U012AB3CD' } });

    const moved = await scim(
      app,
      'PATCH',
      `/Users/${id}`,
      patchOp({ op: 'replace', path: 'preferredLanguage', value: 'zh-CN' }, { op: 'replace', path: 'ims', value: [{ type: 'dingtalk', value: 'mei4021' }] }),
    );
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await person(id)).toMatchObject({ locale: 'zh-CN', im: { dingtalk: 'mei4021' } });
  });

  it('a language that is no language tag is left out', async () => {
    const created = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'lu@notice.example', preferredLanguage: '*' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await person(created.body.id as string)).toMatchObject({ locale: null, im: {} });
  });
});
