import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorAnswerFor, type ErrorShape } from './error-handler.js';

/** What Node refuses before Fastify sees a request, as status, code and message. */
function describeClientError(error: NodeJS.ErrnoException): { status: number; code: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'headers_too_large', message: 'the request line and headers are larger than the server accepts (16 KiB)' };
  }
  return { status: 400, code: 'bad_request', message: 'the request is not valid HTTP' };
}

/** The request target of the raw bytes Node could not parse, when their first line has one. */
function requestPath(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const line = rawPacket.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[A-Z]+ (\/\S*)/.exec(line)?.[1];
}

/**
 * Fastify's `clientErrorHandler`: what Node refuses on the socket (headers past its limit: 431; a request
 * that did not arrive in time: 408; bytes that are not HTTP: 400) answered in the contract's error shape
 * (SCIM's under /scim/v2) with the security headers, instead of Fastify's own body.
 */
export function clientErrorHandlerFor(shapes: readonly ErrorShape[], securityHeaders: Readonly<Record<string, string>>) {
  return function clientErrorHandler(error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, code, message } = describeClientError(error);
    const answer = errorAnswerFor(shapes, requestPath(error.rawPacket), status, code, message);
    const body = JSON.stringify(answer.body);
    const headers = Object.entries(securityHeaders)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: ${answer.contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
