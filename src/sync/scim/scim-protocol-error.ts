export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM error (RFC 7644 §3.12): HTTP status, `scimType` where the RFC names one, and a detail for people. */
export class ScimProblem extends Error {
  override name = 'ScimProblem';
  constructor(
    readonly status: number,
    readonly scimType: string | undefined,
    detail: string,
  ) {
    super(detail);
  }
}
