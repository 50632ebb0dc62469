import type { Migration } from 'kysely';
import type { ColumnTypes } from './column-types.js';
import { directoryMigration } from './001-directory.js';
import { activityMigration } from './002-activity.js';
import { searchMigration } from './003-search.js';
import { eventsMigration } from './004-events.js';
import { manageMigration } from './005-manage.js';
import { searchFilesCoverMigration } from './006-search-files-cover.js';
import { searchShortFileGramsMigration } from './006-search-short-file-grams.js';
import { usersActiveMigration } from './007-users-active.js';
import { fileStorageMigration } from './030-file-storage.js';
import { platformTasksMigration } from './040-platform-tasks.js';
import { syncMigration } from './050-sync.js';
import { consoleSessionsMigration } from './080-console-sessions.js';
import { eventPipelineMigration } from './020-event-pipeline.js';
import { directoryVersionsMigration } from './070-directory-versions.js';
import { grantsByPrincipalCoverMigration } from './071-grants-by-principal-cover.js';
import { retentionIndexesMigration } from './061-retention-indexes.js';
import { auditLogMigration } from './062-audit-log.js';
import { syncRunSkippedMigration } from './090-sync-run-skipped.js';
import { notificationChannelsMigration } from './091-notification-channels.js';
import { deliveryClaimsMigration } from './100-delivery-claims.js';
import { directoryChangesMigration } from './110-directory-changes.js';
import { eventSenderMigration } from './130-event-sender.js';
import { shareLinksMigration } from './140-share-links.js';
import { fileAnonymousMigration } from './145-file-anonymous.js';
import { fileRestrictedKeysMigration } from './147-file-restricted-keys.js';
import { tailXidsMigration } from './150-tail-xids.js';
import { dropSearchIndexMigration } from './160-drop-search-index.js';
import { deliveryMessageKeyMigration } from './180-delivery-message-key.js';
import { usersTeamEmailMigration } from './185-users-team-email.js';
import { auditIndexBatchesMigration } from './190-audit-index-batches.js';
import { scimPasswordScrubMigration } from './195-scim-password-scrub.js';
import { usersEmailKeyMigration } from './200-users-email-key.js';
import { dropEventsPendingMigration } from './205-drop-events-pending.js';
import { deliveriesByRecipientMigration } from './210-deliveries-by-recipient.js';
import { anonymousAccessIndexesMigration } from './215-anonymous-access-indexes.js';
import { scimExternalIdFirstMigration } from './220-scim-external-id-first.js';

/**
 * Every migration, by name; names sort in the order they apply (Kysely applies them by name: the two
 * `006-…` were released with one number and keep it, as every database records them by name; they too
 * sort in the order they apply). A feature adds its own file here;
 * a migration, once released, makes the same schema forever (a new dialect may teach it its own column
 * types, which is how MySQL came in: see column-types.ts).
 */
export function allMigrations(t: ColumnTypes): Record<string, Migration> {
  return {
    '001-directory': directoryMigration(t),
    '002-activity': activityMigration(t),
    '003-search': searchMigration(t),
    '004-events': eventsMigration(t),
    '005-manage': manageMigration(),
    '006-search-files-cover': searchFilesCoverMigration(t),
    '006-search-short-file-grams': searchShortFileGramsMigration(t),
    '007-users-active': usersActiveMigration(),
    '020-event-pipeline': eventPipelineMigration(t),
    '030-file-storage': fileStorageMigration(t),
    '040-platform-tasks': platformTasksMigration(t),
    '050-sync': syncMigration(t),
    '061-retention-indexes': retentionIndexesMigration(),
    '062-audit-log': auditLogMigration(t),
    '070-directory-versions': directoryVersionsMigration(t),
    '071-grants-by-principal-cover': grantsByPrincipalCoverMigration(t),
    '080-console-sessions': consoleSessionsMigration(t),
    '090-sync-run-skipped': syncRunSkippedMigration(t),
    '091-notification-channels': notificationChannelsMigration(t),
    '100-delivery-claims': deliveryClaimsMigration(t),
    '110-directory-changes': directoryChangesMigration(t),
    '130-event-sender': eventSenderMigration(t),
    '140-share-links': shareLinksMigration(t),
    '145-file-anonymous': fileAnonymousMigration(t),
    '147-file-restricted-keys': fileRestrictedKeysMigration(t),
    '150-tail-xids': tailXidsMigration(t),
    '160-drop-search-index': dropSearchIndexMigration(t),
    '180-delivery-message-key': deliveryMessageKeyMigration(t),
    '185-users-team-email': usersTeamEmailMigration(t),
    '190-audit-index-batches': auditIndexBatchesMigration(t),
    '195-scim-password-scrub': scimPasswordScrubMigration(),
    '200-users-email-key': usersEmailKeyMigration(t),
    '205-drop-events-pending': dropEventsPendingMigration(t),
    '210-deliveries-by-recipient': deliveriesByRecipientMigration(t),
    '215-anonymous-access-indexes': anonymousAccessIndexesMigration(t),
    '220-scim-external-id-first': scimExternalIdFirstMigration(t),
  };
}
