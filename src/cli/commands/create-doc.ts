import { loadConfig } from '../../config/config.js';
import { createDocument, DocumentInputError } from '../../platform/create-document.js';
import { PlatformError } from '../../platform/platform-errors.js';
import { documentDeps } from '../../composition/platform-wiring.js';
import { openDatabase } from '../../store/connection/database.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host create-doc --user U --type T [--file-id F] [--name N]

Creates a collaborative document: the file record in DATABASE_URL (pending), then the platform call at
PLATFORM_API_URL, then the record made active. Prints the new file id.
  --user U      the creator (a user of DATABASE_URL)
  --type T      documentPro, document, spreadsheet or table
  --file-id F   the id (default a UUID)
  --name N      the name (default Untitled)`;

/**
 * `collab-host create-doc …`: see the usage. Prints the new file id on stdout; failures are one line on
 * stderr naming the platform's status and body, exit 1.
 */
export async function createDocCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    { usage: USAGE, options: { user: { type: 'string' }, type: { type: 'string' }, 'file-id': { type: 'string' }, name: { type: 'string' } } },
    args,
  );
  if (values.user === undefined || values.type === undefined) throw usageError('--user and --type are required', USAGE);

  const config = loadConfig();
  if (config.tokenSecretIsEphemeral) {
    process.stderr.write(
      'warning: TOKEN_SECRET is not set, so the token handed to the platform is signed with a throw-away key and the ' +
        "server will refuse the platform's callbacks made with it; set TOKEN_SECRET (e.g. in .env)\n",
    );
  }
  const store = await openDatabase(config.databaseUrl);
  try {
    const file = await createDocument(documentDeps(config, store), {
      creatorId: values.user,
      type: values.type,
      name: values.name ?? 'Untitled',
      ...(values['file-id'] === undefined ? {} : { fileId: values['file-id'] }),
    });
    process.stdout.write(`${file.id}\n`);
    return 0;
  } catch (error) {
    if (error instanceof DocumentInputError || error instanceof PlatformError) throw new CliError(`create-doc: ${error.message}`);
    throw error;
  } finally {
    await store.close();
  }
}
