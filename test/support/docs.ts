// The docs as the docs tests read them: README.md and docs/*.md, each split into its headings (as
// GitHub makes their anchors), its links and its fenced blocks with the marker comment on the line
// before each fence. docs/README.md says what the markers mean.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = path.join(import.meta.dirname, '../..');

/** Every page the docs tests check, relative to the repository's root. */
export const DOC_FILES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

export interface Link {
  file: string;
  line: number;
  target: string;
}

export interface Block {
  file: string;
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  /** The text of the HTML comment on the line before the fence, trimmed; '' without one. */
  marker: string;
  body: string;
}

export interface Doc {
  file: string;
  /** The anchors of its headings, as GitHub makes them. */
  anchors: Set<string>;
  links: Link[];
  blocks: Block[];
}

/** GitHub's anchor of a heading: lowercased, punctuation dropped, each space a hyphen; repeats numbered. */
export function slug(heading: string, seen: Map<string, number>): string {
  const base = heading
    .replace(/`/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^\s*<!--(.*)-->\s*$/;
const LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** A closing fence: the opening's character, at least as many times, alone on its line. */
function closes(line: string, opening: string): boolean {
  const fence = line.trim();
  return fence.length >= opening.length && fence === (opening[0] ?? '`').repeat(fence.length);
}

export function readDoc(file: string): Doc {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const doc: Doc = { file, anchors: new Set(), links: [], blocks: [] };
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      const [, indent = '', ticks = '', lang = ''] = fence;
      const close = lines.findIndex((l, j) => j > i && closes(l, ticks));
      const end = close < 0 ? lines.length : close;
      const marker = MARKER.exec(lines[i - 1] ?? '')?.[1]?.trim() ?? '';
      const body = lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n');
      doc.blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), marker, body });
      i = end;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) doc.anchors.add(slug(heading[1] ?? '', seen));
    // Code spans hold no links: `[a](b)` in one is text.
    const text = line.replace(/(`+)(?:(?!\1).)+\1/g, 'code');
    for (const [, target = ''] of text.matchAll(LINK)) doc.links.push({ file, line: i + 1, target });
  }
  return doc;
}

export const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
export const NEEDS_A_CLUSTER = 'needs a cluster';
export const FRAGMENT = 'fragment';
const RUN_BY = /^run by (.+)$/;

/** The files a `run by A, B` marker names; undefined for another marker. */
export function runBy(marker: string): string[] | undefined {
  const named = RUN_BY.exec(marker)?.[1];
  return named?.split(',').map((f) => f.trim());
}

/** The commands of a shell block: continuations joined, comments and output dropped, split at `&&`. */
export function commandsOf(block: Block): string[] {
  const lines = block.body.replace(/\\\n\s*/g, ' ').split('\n');
  const commands =
    block.lang === 'console'
      ? lines.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2))
      : lines.filter((l) => l.trim() && !l.trim().startsWith('#'));
  return commands
    .flatMap((c) => c.replace(/\s+#\s.*$/, '').split('&&'))
    .map(normalised)
    .filter(Boolean);
}

export function normalised(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } & Record<
  string,
  unknown
>;

/** The objects of a YAML block; throws on a parse error or a document that is not a whole object. */
export function manifestsOf(block: Block): Manifest[] {
  return parseAllDocuments(block.body).flatMap((document) => {
    const [error] = document.errors;
    if (error) throw new Error(error.message);
    const value = document.toJS() as unknown;
    if (value === null) return [];
    if (!isWhole(value))
      throw new Error('not a whole object (apiVersion, kind and metadata.name): mark the block <!-- fragment -->');
    return [value];
  });
}

function isWhole(value: unknown): value is Manifest {
  const object = value as Partial<Manifest> | undefined;
  return typeof object?.apiVersion === 'string' && typeof object.kind === 'string' && !!object.metadata?.name;
}
