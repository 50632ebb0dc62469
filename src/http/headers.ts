/** The platform's header names under a brand: `X-{brand}-Token` and the rest (lower case, as Node gives them). */
export interface PlatformHeaders {
  token: string;
  signature: string;
  credentialType: string;
  sdkEvent: string;
  appId: string;
}

export function platformHeaders(brand: string): PlatformHeaders {
  const prefix = `x-${brand.toLowerCase()}-`;
  return {
    token: `${prefix}token`,
    signature: `${prefix}signature`,
    credentialType: `${prefix}credential-type`,
    sdkEvent: `${prefix}sdk-event`,
    appId: `${prefix}app-id`,
  };
}

/** The same names as the platform spells them when it sends (`X-Platform-Token`, …). */
export function displayHeaderName(brand: string, suffix: 'Token' | 'Signature' | 'Credential-Type' | 'Sdk-Event' | 'APP-ID'): string {
  return `X-${brand}-${suffix}`;
}
