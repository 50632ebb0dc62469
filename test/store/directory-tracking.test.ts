import { expect, it } from 'vitest';
import { DIRECTORY_AREAS as AREAS_OF_070 } from '../../src/store/schema/migrations/070-directory-versions.js';
import { DIRECTORY_CHANNEL as CHANNEL_OF_110, FEED_SOURCES as SOURCES_OF_110 } from '../../src/store/schema/migrations/110-directory-changes.js';
import { DIRECTORY_AREAS, DIRECTORY_CHANNEL, FEED_SOURCES } from '../../src/store/schema/directory-tracking.js';

// Run-time code reads these names from src/store/schema/directory-tracking.ts, never from a migration
// (migrations are frozen once released); the copies must say what the migrations wrote into the database.
it('the run-time names of the directory tracking are those migrations 070 and 110 created', () => {
  expect(DIRECTORY_AREAS).toEqual(AREAS_OF_070);
  expect(FEED_SOURCES).toEqual(SOURCES_OF_110);
  expect(DIRECTORY_CHANNEL).toBe(CHANNEL_OF_110);
});
