// The entry of a search worker thread: the sources are TypeScript run through tsx (as bin/collab-host.js
// does for the main thread), and a worker thread does not inherit the main thread's loader.
import { register } from 'tsx/esm/api';

register();
await import('./search-worker.ts');
