import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logger.js';
import { redactText, redactUrl, redactValue } from '../../src/shared/redaction.js';

describe('redaction of what leaves collab-host', () => {
  it('URLs lose their user-info and the values of credential parameters, whatever their case', () => {
    expect(redactUrl('https://user:pass@host.example/x?token=abc&lang=zh&Signature=s&access_token=t&sig=1&key=2&secret=3&password=4')).toBe(
      'https://[redacted]@host.example/x?token=[redacted]&lang=zh&Signature=[redacted]&access_token=[redacted]&sig=[redacted]&key=[redacted]&secret=[redacted]&password=[redacted]',
    );
    expect(redactUrl('https://host.example/cb#access_token=t&state=ok')).toBe('https://host.example/cb#access_token=[redacted]&state=ok');
    expect(redactUrl('https://host.example/monkey=1?keyword=abc')).toBe('https://host.example/monkey=1?keyword=abc');
  });

  it('free text loses credentials in URLs, name=value pairs, quoted JSON members and Bearer values', () => {
    expect(redactText('GET http://u:p@h/x?token=abc failed; password=hunter2, "api_key": "k9", Authorization: Bearer eyJ.x.y')).toBe(
      'GET http://[redacted]@h/x?token=[redacted] failed; password=[redacted], "api_key": "[redacted]", Authorization: Bearer [redacted]',
    );
  });

  it('received values lose credential members at any depth; everything else stays', () => {
    expect(
      redactValue({ headers: { 'X-Shimo-Token': 't', 'x-platform-signature': 's', Cookie: 'c', Accept: 'json' }, list: [{ password: 'p', name: 'n' }], count: 3, token: null }),
    ).toEqual({
      headers: { 'X-Shimo-Token': '[redacted]', 'x-platform-signature': '[redacted]', Cookie: '[redacted]', Accept: 'json' },
      list: [{ password: '[redacted]', name: 'n' }],
      count: 3,
      token: null,
    });
  });

  it('the request log shows URLs redacted the same way', () => {
    const options = loggerOptions('info') as { serializers: { req: (request: { method: string; url: string; id: string }) => { url: string } } };
    expect(options.serializers.req({ method: 'GET', url: '/files/plan?signature=abc&x=1', id: '1' }).url).toBe('/files/plan?signature=[redacted]&x=1');
  });
});
