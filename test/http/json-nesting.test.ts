import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-body.js';

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const nestedArrays = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('nestsDeeperThan: the nesting bound of every JSON body', () => {
  it('takes exactly the bound and refuses one level more, for objects, arrays and both', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(nestedArrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nestedArrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    const mixed = `${'[{"a":'.repeat(33)}1${'}]'.repeat(33)}`;
    expect(nestsDeeperThan(mixed, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(mixed, 66)).toBe(false);
  });

  it('takes a shallow body with many more brackets than the bound (a long list of objects)', () => {
    const list = JSON.stringify(Array.from({ length: 500 }, (_, index) => ({ id: `u${index}`, tags: ['a', 'b'] })));
    expect(nestsDeeperThan(list, MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`{"ids":[${'"x",'.repeat(1000)}"y"]}`, 2)).toBe(false);
  });

  it('does not count brackets inside strings', () => {
    const text = JSON.stringify({ name: '['.repeat(500) + '{'.repeat(500), more: ['{[\\"'] });
    expect(nestsDeeperThan(text, 2)).toBe(false);
    expect(nestsDeeperThan(text, 1)).toBe(true);
  });
});
