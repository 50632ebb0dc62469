import type { ActivityReads } from '../../directory/read-model/model-search.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import { ACTIVITY_BUNDLE_PARTS, ACTIVITY_SQL } from './directory-statements.js';

type Part = (typeof ACTIVITY_BUNDLE_PARTS)[number];

interface Wanted {
  part: Part;
  id: string;
  resolve: (found: Map<string, string>) => void;
  reject: (error: unknown) => void;
}

/** The reads of one statement: at most one id per part. */
type Bundle = Record<Part, string | null> & { waiting: Wanted[] };

/**
 * The activity that ranks searches, read in one statement per search. The kinds of one `POST /search` ask
 * for their activity in the same turn of the event loop (the viewer's contacts, the files they touched, the
 * activity on the file); the reads asked for in a turn are gathered and run at its end as one statement
 * (ACTIVITY_SQL.bundle) per viewer and file: one round trip instead of three on PostgreSQL and MySQL, one
 * statement instead of three on SQLite, and all three from one snapshot. The maps answered are shared by
 * the readers of a turn: read them, never change them.
 */
export class BundledActivityReads implements ActivityReads {
  private wanted: Wanted[] = [];

  constructor(private readonly reads: PreparedReads) {}

  contactsOf(viewerId: string): Promise<Map<string, string>> {
    return this.want('contacts', viewerId);
  }
  touchedFilesOf(viewerId: string): Promise<Map<string, string>> {
    return this.want('touched', viewerId);
  }
  activityOnFile(fileId: string): Promise<Map<string, string>> {
    return this.want('onFile', fileId);
  }

  private want(part: Part, id: string): Promise<Map<string, string>> {
    return new Promise((resolve, reject) => {
      if (this.wanted.length === 0) queueMicrotask(() => this.readWanted());
      this.wanted.push({ part, id, resolve, reject });
    });
  }

  private readWanted(): void {
    const wanted = this.wanted;
    this.wanted = [];
    // Searches side by side in one turn (rare) each get a statement: a bundle holds one id per part.
    const bundles: Bundle[] = [];
    for (const read of wanted) {
      let bundle = bundles.find((candidate) => candidate[read.part] === null || candidate[read.part] === read.id);
      if (!bundle) bundles.push((bundle = { contacts: null, touched: null, onFile: null, waiting: [] }));
      bundle[read.part] = read.id;
      bundle.waiting.push(read);
    }
    for (const bundle of bundles) void this.readBundle(bundle);
  }

  private async readBundle(bundle: Bundle): Promise<void> {
    try {
      const rows = await this.reads.rows<{ part: number | string; id: string; last_at: string }>(ACTIVITY_SQL.bundle, [bundle.contacts, bundle.touched, bundle.onFile]);
      const found: Record<Part, Map<string, string>> = { contacts: new Map(), touched: new Map(), onFile: new Map() };
      for (const row of rows) found[ACTIVITY_BUNDLE_PARTS[Number(row.part)]!].set(row.id, row.last_at);
      for (const read of bundle.waiting) read.resolve(found[read.part]);
    } catch (error) {
      for (const read of bundle.waiting) read.reject(error);
    }
  }
}
