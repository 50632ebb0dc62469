/** The platform's header names under a brand (`X-Platform-Token`; `X-Shimo-Token` with brand Shimo). */
export interface BrandHeaders {
  token: string;
  signature: string;
  credentialType: string;
  sdkEvent: string;
  appId: string;
}

export function brandHeaders(brand = 'Platform'): BrandHeaders {
  return {
    token: `X-${brand}-Token`,
    signature: `X-${brand}-Signature`,
    credentialType: `X-${brand}-Credential-Type`,
    sdkEvent: `X-${brand}-Sdk-Event`,
    appId: `X-${brand}-APP-ID`,
  };
}
