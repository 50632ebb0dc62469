import { CASE_EXACT, comparable, valuesAt } from './scim-filter-match.js';
import { parseAttributePath, type AttributePath } from './scim-paths.js';
import { ScimProblem } from './scim-protocol-error.js';

/** `sortBy` and `sortOrder` of a list (RFC 7644 §3.4.2.3). */
export interface SortOrder {
  path: AttributePath;
  descending: boolean;
}

/** Reads `sortBy` (an attribute path by our rules) and `sortOrder` (`ascending`, the default, or `descending`). */
export function parseSort(sortBy: string | undefined, sortOrder: string | undefined): SortOrder | undefined {
  if (sortOrder !== undefined && !/^(ascending|descending)$/i.test(sortOrder)) throw new ScimProblem(400, 'invalidValue', 'sortOrder must be "ascending" or "descending"');
  if (sortBy === undefined) return undefined;
  return { path: parseAttributePath(sortBy.trim(), 'invalidPath', 'sortBy'), descending: sortOrder?.toLowerCase() === 'descending' };
}

/** The value a resource sorts by: the primary (else first) value at the path, case-folded unless case-exact. */
function sortKey(resource: Record<string, unknown>, order: SortOrder): string | number | boolean | undefined {
  const values = valuesAt(resource, order.path);
  const chosen = values.find((value) => typeof value === 'object' && value !== null && (value as { primary?: unknown }).primary === true) ?? values[0];
  const value = comparable(chosen);
  if (typeof value === 'string') return CASE_EXACT.has(order.path.names[0]!.toLowerCase()) ? value : value.toLowerCase();
  return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/**
 * The resources in `sortBy` order (stable). Resources without a value sort last when ascending and first
 * when descending, as RFC 7644 §3.4.2.3 says.
 */
export function sortResources<T>(resources: T[], order: SortOrder | undefined): T[] {
  if (!order) return resources;
  const keyed = resources.map((resource, index) => ({ resource, index, key: sortKey(resource as Record<string, unknown>, order) }));
  const direction = order.descending ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? a.index - b.index : (a.key === undefined ? 1 : -1) * direction;
    if (a.key === b.key) return a.index - b.index;
    return (a.key < b.key ? -1 : 1) * direction;
  });
  return keyed.map((item) => item.resource);
}
