// Temporal's visibility query language, as far as the controller writes it: comparisons of search
// attributes (=, !=, <, <=, >, >=, IN, STARTS_WITH), AND, OR, NOT, parentheses and a trailing GROUP BY. The model
// answers counts and runs batch operations on exactly the workflows a query matches, so a
// query that selects too much (auto-upgrade workflows, another build) touches them here as it
// would in Temporal. An attribute or syntax the model does not know is an error, never a guess.

export type Attribute =
  | 'TemporalWorkerDeploymentVersion'
  | 'TemporalWorkflowVersioningBehavior'
  | 'ExecutionStatus'
  | 'WorkflowType'
  | 'WorkflowId'
  | 'CloseTime'
  | 'StartTime'
  | 'TemporalNamespaceDivision';

const ATTRIBUTES = new Set<string>([
  'TemporalWorkerDeploymentVersion',
  'TemporalWorkflowVersioningBehavior',
  'ExecutionStatus',
  'WorkflowType',
  'WorkflowId',
  'CloseTime',
  'StartTime',
  'TemporalNamespaceDivision',
]);
const TIMES = new Set<string>(['CloseTime', 'StartTime']);

/** What a query reads of one workflow; undefined where the workflow has no such attribute. */
export type Row = Partial<Record<Attribute, string>>;

type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type Expression =
  | { kind: 'compare'; attribute: Attribute; operator: Operator; value: string }
  | { kind: 'in'; attribute: Attribute; values: string[] }
  | { kind: 'startsWith'; attribute: Attribute; prefix: string }
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression };

export interface Query {
  where: Expression;
  groupBy?: Attribute;
}

export class QueryError extends Error {
  override name = 'QueryError';
}

type Token = { kind: 'word' | 'string' | 'symbol'; text: string };

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) value += text[j++];
      if (j >= text.length) throw new QueryError(`unterminated string at ${i}: ${text}`);
      out.push({ kind: 'string', text: value });
      i = j + 1;
    } else if ('(),'.includes(c)) {
      out.push({ kind: 'symbol', text: c });
      i++;
    } else if ('=!<>'.includes(c)) {
      const two = text.slice(i, i + 2);
      const op = ['!=', '<=', '>='].includes(two) ? two : c;
      if (op === '!') throw new QueryError(`unexpected "!" at ${i}: ${text}`);
      out.push({ kind: 'symbol', text: op });
      i += op.length;
    } else if (/[A-Za-z0-9_.-]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_.-]/.test(text[j] ?? '')) j++;
      out.push({ kind: 'word', text: text.slice(i, j) });
      i = j;
    } else {
      throw new QueryError(`unexpected "${c}" at ${i}: ${text}`);
    }
  }
  return out;
}

export function parseQuery(text: string): Query {
  const list = tokens(text);
  let at = 0;
  const peek = (): Token | undefined => list[at];
  const keyword = (word: string): boolean => {
    const t = peek();
    if (t?.kind === 'word' && t.text.toUpperCase() === word) {
      at++;
      return true;
    }
    return false;
  };
  const expect = (kind: Token['kind'], what: string): Token => {
    const t = list[at++];
    if (!t || t.kind !== kind) throw new QueryError(`expected ${what} at token ${at - 1} of: ${text}`);
    return t;
  };
  const attribute = (): Attribute => {
    const name = expect('word', 'a search attribute').text;
    if (!ATTRIBUTES.has(name)) throw new QueryError(`the model does not know search attribute ${name}: ${text}`);
    return name as Attribute;
  };
  const value = (): string => {
    const t = list[at++];
    if (!t || (t.kind !== 'string' && t.kind !== 'word')) throw new QueryError(`expected a value in: ${text}`);
    return t.text;
  };
  const primary = (): Expression => {
    if (keyword('NOT')) return { kind: 'not', operand: primary() };
    const t = peek();
    if (t?.kind === 'symbol' && t.text === '(') {
      at++;
      const inner = or();
      const close = expect('symbol', '")"');
      if (close.text !== ')') throw new QueryError(`expected ")" in: ${text}`);
      return inner;
    }
    const name = attribute();
    if (keyword('IN')) {
      if (expect('symbol', '"("').text !== '(') throw new QueryError(`expected "(" after IN in: ${text}`);
      const values = [value()];
      for (;;) {
        const s = expect('symbol', '"," or ")"').text;
        if (s === ')') break;
        if (s !== ',') throw new QueryError(`expected "," or ")" in: ${text}`);
        values.push(value());
      }
      return { kind: 'in', attribute: name, values };
    }
    if (keyword('STARTS_WITH')) return { kind: 'startsWith', attribute: name, prefix: value() };
    const op = expect('symbol', 'a comparison').text;
    if (!['=', '!=', '<', '<=', '>', '>='].includes(op)) throw new QueryError(`unknown operator ${op} in: ${text}`);
    return { kind: 'compare', attribute: name, operator: op as Operator, value: value() };
  };
  const and = (): Expression => {
    let left = primary();
    while (keyword('AND')) left = { kind: 'and', left, right: primary() };
    return left;
  };
  const or = (): Expression => {
    let left = and();
    while (keyword('OR')) left = { kind: 'or', left, right: and() };
    return left;
  };
  const where = or();
  let groupBy: Attribute | undefined;
  if (keyword('GROUP')) {
    if (!keyword('BY')) throw new QueryError(`expected BY after GROUP in: ${text}`);
    groupBy = attribute();
  }
  if (at !== list.length) throw new QueryError(`unexpected "${list[at]?.text ?? ''}" in: ${text}`);
  return groupBy ? { where, groupBy } : { where };
}

function compare(attribute: Attribute, actual: string | undefined, operator: Operator, value: string): boolean {
  if (actual === undefined) return operator === '!=';
  if (TIMES.has(attribute)) {
    const a = Date.parse(actual);
    const b = Date.parse(value);
    if (Number.isNaN(b)) throw new QueryError(`not a time: ${value}`);
    return ordered(a, b, operator);
  }
  return ordered(actual, value, operator);
}

function ordered<T extends string | number>(a: T, b: T, operator: Operator): boolean {
  switch (operator) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

export function matches(expression: Expression, row: Row): boolean {
  switch (expression.kind) {
    case 'compare':
      return compare(expression.attribute, row[expression.attribute], expression.operator, expression.value);
    case 'in': {
      const actual = row[expression.attribute];
      return actual !== undefined && expression.values.includes(actual);
    }
    case 'startsWith':
      return row[expression.attribute]?.startsWith(expression.prefix) ?? false;
    case 'and':
      return matches(expression.left, row) && matches(expression.right, row);
    case 'or':
      return matches(expression.left, row) || matches(expression.right, row);
    case 'not':
      return !matches(expression.operand, row);
  }
}

/** Every value the query compares `attribute` equal to: the builds a batch's query names, say. */
export function valuesCompared(expression: Expression, attribute: Attribute): string[] {
  switch (expression.kind) {
    case 'compare':
      return expression.attribute === attribute && expression.operator === '=' ? [expression.value] : [];
    case 'in':
      return expression.attribute === attribute ? [...expression.values] : [];
    case 'startsWith':
      return [];
    case 'and':
    case 'or':
      return [...valuesCompared(expression.left, attribute), ...valuesCompared(expression.right, attribute)];
    case 'not':
      return [];
  }
}
