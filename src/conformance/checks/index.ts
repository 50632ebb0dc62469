import type { Check } from '../check.js';
import { authChecks } from './auth.js';
import { collaboratorChecks } from './collaborators.js';
import { departmentChecks } from './departments.js';
import { eventChecks } from './events.js';
import { fileChecks } from './files.js';
import { guestChecks } from './guests.js';
import { productionEventChecks } from './production-events.js';
import { searchChecks } from './search.js';
import { signedChecks } from './signed.js';
import { teamChecks } from './team.js';
import { timeChecks } from './time.js';
import { userChecks } from './users.js';

/** Every check, in report order. */
export const ALL_CHECKS: readonly Check[] = [
  ...userChecks,
  ...teamChecks,
  ...departmentChecks,
  ...fileChecks,
  ...collaboratorChecks,
  ...timeChecks,
  ...searchChecks,
  ...authChecks,
  ...guestChecks,
  ...signedChecks,
  ...eventChecks,
  ...productionEventChecks,
];

/** The group names, for --only and --skip. */
export const GROUPS: readonly string[] = [...new Set(ALL_CHECKS.map((check) => check.group))];
