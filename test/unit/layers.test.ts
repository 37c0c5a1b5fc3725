// Every import runs down (docs/architecture.md, "Layers"): each room of src/ stands on a floor of
// test/support/floors.ts, a file imports only its own room and the rooms of lower floors, nothing
// of src/ imports a file outside it, and no file comes back to itself through its imports. Every
// import counts, read from each file's syntax tree: type-only ones, re-exports, import() calls and
// import('…') types. eslint.config.js says the same per room, for the editor.
import assert from 'node:assert/strict';
import { globSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { FLOORS } from '../support/floors.ts';

const ROOT = path.join(import.meta.dirname, '../..');

/** The relative specifiers a file imports, in any of the ways TypeScript has. */
function importsOf(file: string, text: string): string[] {
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      if (ts.isStringLiteral(node.moduleReference.expression)) specifiers.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) specifiers.push(first.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      if (ts.isStringLiteral(node.argument.literal)) specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return specifiers.filter((s) => s.startsWith('.'));
}

/** Per file of src/ (relative to the root), the files it imports, relative to the root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of globSync('src/**/*.ts', { cwd: ROOT }).sort()) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    graph.set(
      file,
      importsOf(file, text).map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s))),
    );
  }
  return graph;
}

/** src/<room>/…: the room; undefined outside src/ or directly in it. */
function roomOf(file: string): string | undefined {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : undefined;
}

/** Why `from` may not import `to`; undefined when it may. */
function upward(from: string, to: string): string | undefined {
  const [fromRoom, toRoom] = [roomOf(from), roomOf(to)];
  if (toRoom === undefined) return 'outside src/';
  if (fromRoom === toRoom) return undefined;
  const [fromFloor, toFloor] = [FLOORS[fromRoom ?? ''], FLOORS[toRoom]];
  if (fromFloor === undefined || toFloor === undefined) return 'a room with no floor';
  return toFloor < fromFloor ? undefined : `${fromRoom} (floor ${fromFloor}) → ${toRoom} (floor ${toFloor})`;
}

/** Each cycle of files, one per strongly connected component (Tarjan), as a path back to its first file. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return components.map((component) => shortestCycle(graph, component));
}

/** The shortest way from a component's first file back to it, within the component. */
function shortestCycle(graph: Map<string, string[]>, component: string[]): string[] {
  const [start] = component as [string];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (const file of queue)
    for (const next of graph.get(file) ?? []) {
      if (!component.includes(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      if (next === start) {
        const way = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) way.unshift(at);
        return [start, ...way];
      }
      queue.push(next);
    }
  return component;
}

test('the imports are read in every form: type-only, re-exports, import() and import types', () => {
  const text = [
    "import { a } from './a.ts';",
    "import type { B } from '../b/b.ts';",
    "export { c } from './c.ts';",
    "export * from './d.ts';",
    "import e = require('./e.ts');",
    "const f = await import('./f.ts');",
    "let g: import('./g.ts').G;",
    "import 'node:fs';",
    "import h from 'h';",
  ].join('\n');
  assert.deepEqual(importsOf('x.ts', text), ['./a.ts', '../b/b.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts']);
});

test('every room of src/ has a floor, and the floors name only rooms that are there', () => {
  const rooms = readdirSync(path.join(ROOT, 'src'));
  assert.deepEqual(
    rooms.filter((room) => FLOORS[room] === undefined),
    [],
    'in src/ with no floor in test/support/floors.ts',
  );
  assert.deepEqual(
    Object.keys(FLOORS).filter((room) => !rooms.includes(room)),
    [],
    'a room of test/support/floors.ts that src/ does not have',
  );
});

test('every import runs down: to its own room, or to a room of a lower floor', () => {
  const wrong: string[] = [];
  for (const [file, targets] of importGraph()) {
    for (const target of targets) {
      const why = upward(file, target);
      if (why) wrong.push(`${file} imports ${target}: ${why}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no file of src/ comes back to itself through its imports', () => {
  assert.deepEqual(
    cycles(importGraph()).map((cycle) => cycle.join(' → ')),
    [],
  );
});
