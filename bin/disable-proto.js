// Node's `--disable-proto=throw`, for a start without the flag (`npx collab-host`, a bare `node
// bin/collab-host.js`): reading or setting `__proto__` on any object throws, so that no request key
// named `__proto__` can reach an object's prototype through a library that builds objects from input
// (issue 20). `npm start` passes the flag itself; with it, this does nothing. Object literals
// (`{ __proto__: null }`), Object.create and Object.setPrototypeOf keep working.
export function disableProto() {
  if (process.execArgv.some((arg) => arg.startsWith('--disable-proto')) || /--disable-proto/.test(process.env.NODE_OPTIONS ?? '')) return;
  const refuse = () => {
    const error = new TypeError('Object.prototype.__proto__ is disabled (collab-host runs as with --disable-proto=throw)');
    error.code = 'ERR_PROTO_ACCESS';
    throw error;
  };
  Object.defineProperty(Object.prototype, '__proto__', { get: refuse, set: refuse, configurable: false, enumerable: false });
}
