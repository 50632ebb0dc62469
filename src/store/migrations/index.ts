import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { directoryMigration } from './001-directory.js';
import { activityMigration } from './002-activity.js';
import { searchMigration } from './003-search.js';
import { eventsMigration } from './004-events.js';
import { manageMigration } from './005-manage.js';
import { searchFilesCoverMigration } from './006-search-files-cover.js';
import { searchShortFileGramsMigration } from './006-search-short-file-grams.js';

/**
 * Every migration, by name; names sort in the order they apply. A feature adds its own file here;
 * a migration, once released, is never edited.
 */
export function allMigrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001-directory': directoryMigration(dialect),
    '002-activity': activityMigration(),
    '003-search': searchMigration(dialect),
    '004-events': eventsMigration(dialect),
    '005-manage': manageMigration(),
    '006-search-files-cover': searchFilesCoverMigration(),
    '006-search-short-file-grams': searchShortFileGramsMigration(dialect),
  };
}
