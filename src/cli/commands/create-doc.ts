import { parseArgs } from 'node:util';
import { loadConfig } from '../../config.js';
import { createDocument, DocumentInputError } from '../../platform/create-document.js';
import { createDocumentDeps } from '../../platform/create-document-deps.js';
import { PlatformError } from '../../platform/platform-errors.js';
import { openDatabase } from '../../store/database.js';
import { CliError } from '../cli-error.js';

const USAGE = 'usage: collab-host create-doc --user U --type T [--file-id F] [--name N]';

/**
 * `collab-host create-doc …`: creates a collaborative document: the file record in DATABASE_URL first
 * (pending), then the platform call at PLATFORM_API_URL, then the record made active (or removed or
 * marked failed, see src/platform/create-document.ts). Prints the new file id on stdout; failures are one
 * line on stderr naming the platform's error code, exit 1.
 */
export async function createDocCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args);
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"\n${USAGE}`);
  if (values.user === undefined || values.type === undefined) throw new CliError(`--user and --type are required\n${USAGE}`);

  const config = loadConfig();
  if (config.tokenSecretIsEphemeral) {
    process.stderr.write(
      'warning: TOKEN_SECRET is not set, so the token handed to the platform is signed with a throw-away key and the ' +
        "server will refuse the platform's callbacks for this document; set TOKEN_SECRET (e.g. in .env)\n",
    );
  }
  const store = await openDatabase(config.databaseUrl);
  try {
    const file = await createDocument(createDocumentDeps(config, store), {
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

function parseCommandArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { user: { type: 'string' }, type: { type: 'string' }, 'file-id': { type: 'string' }, name: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}
