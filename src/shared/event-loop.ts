/** Lets the event loop run what is waiting (I/O callbacks, other requests) before going on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
