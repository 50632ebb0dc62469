/**
 * Why a credential check refused a caller: the status, error code and message the HTTP layer answers with
 * (src/http/errors.ts `refusalError`). The checks in auth/ decide; they never see a request.
 */
export interface AuthRefusal {
  /** 401: no valid credential; 403: a valid one that does not allow this; 404: the API is switched off. */
  status: 401 | 403 | 404;
  code: string;
  message: string;
}
