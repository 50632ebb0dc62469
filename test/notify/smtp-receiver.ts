import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope: MAIL FROM and RCPT TO as the server took them. */
  from: string;
  to: string[];
  /** Whether the session was upgraded with STARTTLS (or was TLS from the start) before the data. */
  secure: boolean;
  raw: string;
  parsed: ParsedMail;
}

/**
 * A real SMTP server (the smtp-server package) on port 0 of 127.0.0.1, offering STARTTLS with its own
 * self-signed certificate; `rejectRecipients` answers 550 for those addresses, as a server does for an
 * unknown mailbox. `secure: true` speaks TLS from the first byte (smtps://).
 */
export async function startSmtpServer(options: { secure?: boolean; rejectRecipients?: string[] } = {}) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: options.secure ?? false,
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipients?.includes(address.address)) {
        const error = Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              secure: session.secure,
              raw,
              parsed,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  // A client that dies mid-session (a killed service) resets its connection: the server reports it here
  // instead of as an unhandled error.
  const errors: Error[] = [];
  server.on('error', (error: Error) => errors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const scheme = options.secure ? 'smtps' : 'smtp';
  return {
    /** The test server's certificate is self-signed: this URL accepts it (a real one would not need to). */
    url: `${scheme}://127.0.0.1:${port}/?tls.rejectUnauthorized=false`,
    received,
    errors,
    to: (address: string) => received.filter((mail) => mail.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
