// The thread of name-keys-ahead.ts when run from the TypeScript sources (tests, `npm run dev`): a worker
// thread does not inherit the main thread's loader, so tsx is registered first.
import { register } from 'tsx/esm/api';

register();
await import('./name-keys-thread.ts');
