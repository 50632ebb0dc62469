import { parseAttributePath, type AttributePath } from './scim-paths.js';
import { ScimProblem } from './scim-protocol-error.js';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) parsed and evaluated by our own rules, so that no library builds
 * objects from a caller's text: a malformed expression is `400 invalidFilter` in our words, and a
 * resource without the compared value simply does not match (it never fails the filter for everyone).
 *
 *   FILTER    = attrExp / logExp / valuePath / "not" "(" FILTER ")" / "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]"
 *   attrExp   = attrPath SP "pr" / attrPath SP compareOp SP compValue
 *   logExp    = FILTER SP ("and" / "or") SP FILTER        ("and" binds tighter than "or")
 */

export type CompareOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt' | 'ge' | 'le';
export type FilterValue = string | number | boolean | null;

export type FilterNode =
  | { kind: 'compare'; path: AttributePath; operator: CompareOperator; value: FilterValue }
  | { kind: 'present'; path: AttributePath }
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; node: FilterNode }
  | { kind: 'valuePath'; path: AttributePath; filter: FilterNode };

/** A parsed filter, as `parseFilter` gives it. */
export interface ScimFilter {
  root: FilterNode;
  text: string;
}

/** Limits that keep one filter's parse and evaluation small. */
export const FILTER_LIMITS = { length: 2000, comparisons: 32, depth: 8 } as const;

const OPERATORS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le']);

type Token = { kind: 'open' | 'close' | 'openBracket' | 'closeBracket' } | { kind: 'word'; text: string } | { kind: 'value'; value: FilterValue };

const TOKEN = /\s*(?:(\()|(\))|(\[)|(\])|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![^\s()[\]])|([^\s()[\]"]+))/y;

function invalid(message: string): ScimProblem {
  return new ScimProblem(400, 'invalidFilter', `filter: ${message}`);
}

function tokenise(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw invalid(`unexpected character at position ${at + 1} (an unterminated string?)`);
    const [, open, close, openBracket, closeBracket, quoted, number, word] = match;
    if (open) tokens.push({ kind: 'open' });
    else if (close) tokens.push({ kind: 'close' });
    else if (openBracket) tokens.push({ kind: 'openBracket' });
    else if (closeBracket) tokens.push({ kind: 'closeBracket' });
    else if (quoted !== undefined) {
      let value: string;
      try {
        value = JSON.parse(quoted) as string;
      } catch {
        throw invalid(`the string at position ${at + 1} has an invalid escape`);
      }
      tokens.push({ kind: 'value', value });
    } else if (number !== undefined) tokens.push({ kind: 'value', value: Number(number) });
    else tokens.push({ kind: 'word', text: word! });
  }
  return tokens;
}

class Parser {
  private position = 0;
  private comparisons = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    if (this.tokens.length === 0) throw invalid('the filter is empty');
    const node = this.or(0, false);
    if (this.position < this.tokens.length) throw invalid(`unexpected ${this.describe(this.tokens[this.position]!)} after a complete expression`);
    return node;
  }

  /** `or` of `and`s of unary expressions ("and" binds tighter). */
  private or(depth: number, inValuePath: boolean, word: 'or' | 'and' = 'or'): FilterNode {
    const operand = () => (word === 'or' ? this.or(depth, inValuePath, 'and') : this.unary(depth, inValuePath));
    let node = operand();
    while (this.isWord(word)) {
      this.position += 1;
      node = { kind: word, left: node, right: operand() };
    }
    return node;
  }

  private unary(depth: number, inValuePath: boolean): FilterNode {
    if (depth > FILTER_LIMITS.depth) throw invalid(`parentheses nest deeper than ${FILTER_LIMITS.depth} levels`);
    if (this.isWord('not')) {
      this.position += 1;
      if (this.peek()?.kind !== 'open') throw invalid('"not" must be followed by a parenthesised expression');
      return { kind: 'not', node: this.unary(depth + 1, inValuePath) };
    }
    if (this.peek()?.kind === 'open') {
      this.position += 1;
      const node = this.or(depth + 1, inValuePath);
      this.expect('close', '")"');
      return node;
    }
    return this.expression(depth, inValuePath);
  }

  private expression(depth: number, inValuePath: boolean): FilterNode {
    const token = this.next();
    if (token?.kind !== 'word') throw invalid(token ? `expected an attribute name, found ${this.describe(token)}` : 'expected an attribute name at the end');
    const path = parseAttributePath(token.text, 'invalidFilter', 'filter attribute');
    if (this.peek()?.kind === 'openBracket') {
      if (inValuePath) throw invalid('a "[...]" filter cannot contain another');
      this.position += 1;
      const filter = this.or(depth + 1, true);
      this.expect('closeBracket', '"]"');
      return { kind: 'valuePath', path, filter };
    }
    this.comparisons += 1;
    if (this.comparisons > FILTER_LIMITS.comparisons) throw invalid(`more than ${FILTER_LIMITS.comparisons} comparisons`);
    const operatorToken = this.next();
    if (operatorToken?.kind !== 'word') throw invalid(`expected an operator after ${JSON.stringify(token.text)} (eq, ne, co, sw, ew, gt, lt, ge, le or pr)`);
    const operator = operatorToken.text.toLowerCase();
    if (operator === 'pr') return { kind: 'present', path };
    if (!OPERATORS.has(operator)) throw invalid(`"${operatorToken.text.slice(0, 20)}" is not an operator (eq, ne, co, sw, ew, gt, lt, ge, le or pr)`);
    const valueToken = this.next();
    let value: FilterValue;
    if (valueToken?.kind === 'value') value = valueToken.value;
    else if (valueToken?.kind === 'word' && /^(true|false|null)$/i.test(valueToken.text))
      value = valueToken.text.toLowerCase() === 'null' ? null : valueToken.text.toLowerCase() === 'true';
    else throw invalid(`expected a value after "${operator}" (a "quoted string", a number, true, false or null)`);
    if (['co', 'sw', 'ew'].includes(operator) && typeof value !== 'string') throw invalid(`"${operator}" compares strings: quote the value`);
    if (['gt', 'lt', 'ge', 'le'].includes(operator) && (typeof value === 'boolean' || value === null)) throw invalid(`"${operator}" cannot compare with ${String(value)}`);
    return { kind: 'compare', path, operator: operator as CompareOperator, value };
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private next(): Token | undefined {
    const token = this.tokens[this.position];
    if (token) this.position += 1;
    return token;
  }

  private isWord(word: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }

  private expect(kind: Token['kind'], shown: string): void {
    const token = this.next();
    if (token?.kind !== kind) throw invalid(`expected ${shown}${token ? `, found ${this.describe(token)}` : ' at the end'}`);
  }

  private describe(token: Token): string {
    if (token.kind === 'word') return JSON.stringify(token.text.slice(0, 40));
    if (token.kind === 'value') return `the value ${JSON.stringify(token.value)}`.slice(0, 60);
    return { open: '"("', close: '")"', openBracket: '"["', closeBracket: '"]"' }[token.kind];
  }
}

/** Parses a filter, or throws `400 invalidFilter` saying what is wrong in our words. */
export function parseFilter(text: unknown): ScimFilter {
  if (typeof text !== 'string') throw invalid('must be a text expression such as userName eq "a@example.com"');
  if (text.length > FILTER_LIMITS.length) throw invalid(`longer than ${FILTER_LIMITS.length} characters`);
  return { root: new Parser(tokenise(text)).parse(), text };
}
