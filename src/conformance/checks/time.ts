import type { Check } from '../check.js';
import { isRecord } from '../jwt.js';
import { seg } from '../probe.js';
import { fileSightings } from './files.js';
import { search } from './search.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Whether the text is exactly `YYYY-MM-DDThh:mm:ssZ` and a real instant. */
export function isInterfaceTime(text: string): boolean {
  if (!TIME.test(text)) return false;
  const parsed = Date.parse(text);
  return !Number.isNaN(parsed) && new Date(parsed).toISOString().replace(/\.\d{3}Z$/, 'Z') === text;
}

/** Part 1: every time on the wire is `YYYY-MM-DDThh:mm:ssZ`, UTC, without milliseconds or offset. */
export const timeChecks: Check[] = [
  {
    id: 'time.format',
    group: 'time',
    section: '1',
    title: 'createdAt and updatedAt are exactly YYYY-MM-DDThh:mm:ssZ (UTC, no milliseconds, no offset)',
    async run(c) {
      const sightings = await fileSightings(c);
      const credentials = c.probe.options.credentials;
      if (credentials && c.found.fileId !== undefined) {
        const fileId = c.found.fileId;
        const answer = await c.probe.signed(credentials, { fileId }, `/admin/files/${seg(fileId)}`);
        if (answer.status === 200 && isRecord(answer.body)) sightings.push({ where: `GET /admin/files/${fileId}`, file: answer.body });
      }
      if (c.found.fileId !== undefined) {
        const answer = await search(c, ['file_name'], '', 0, 20);
        const files = isRecord(answer.body) && isRecord(answer.body.files) ? answer.body.files.results : undefined;
        if (Array.isArray(files)) files.forEach((file, i) => isRecord(file) && sightings.push({ where: `POST /search files.results[${i}]`, file }));
      }
      if (sightings.length === 0) return c.skip('no file visible to the user');
      for (const { where, file } of sightings) {
        for (const field of ['createdAt', 'updatedAt']) {
          const value = file[field];
          if (value === undefined && file.type === 'file') continue;
          if (typeof value !== 'string' || !isInterfaceTime(value)) c.fail(`${where}: ${field} ${JSON.stringify(value)} is not YYYY-MM-DDThh:mm:ssZ`);
        }
      }
    },
  },
];
