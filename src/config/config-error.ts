/** A present but malformed value. The message is one line naming the variable and the rule. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
