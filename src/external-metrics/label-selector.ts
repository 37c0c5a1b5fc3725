// Kubernetes label selectors as they arrive in a query string (`labelSelector=a=b,c in (x,y),!d`):
// parsed once, then matched against a metric's labels. Equality (`=`, `==`, `!=`), sets (`in`,
// `notin`) and existence (`key`, `!key`), as the API server's own parser takes them.

export type Requirement =
  { key: string; operator: 'in' | 'notin'; values: string[] } | { key: string; operator: 'exists' | 'absent' };

export class InvalidLabelSelectorError extends Error {
  override readonly name = 'InvalidLabelSelectorError';
}

/** The requirements of a selector; an empty selector has none and matches everything. */
export function parseLabelSelector(text: string): Requirement[] {
  return splitTopLevel(text)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part): Requirement => {
      const set = /^([^\s!=()]+)\s+(in|notin)\s+\(([^()]*)\)$/.exec(part);
      if (set)
        return {
          key: set[1] ?? '',
          operator: set[2] as 'in' | 'notin',
          values: (set[3] ?? '').split(',').map((v) => v.trim()),
        };
      const equality = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(part);
      if (equality)
        return {
          key: equality[1] ?? '',
          operator: equality[2] === '!=' ? 'notin' : 'in',
          values: [equality[3] ?? ''],
        };
      const existence = /^(!?)\s*([^\s!=()]+)$/.exec(part);
      if (existence) return { key: existence[2] ?? '', operator: existence[1] ? 'absent' : 'exists' };
      throw new InvalidLabelSelectorError(`labelSelector: "${part}" is not a label requirement`);
    });
}

export function matches(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((requirement) => {
    const value = labels[requirement.key];
    switch (requirement.operator) {
      case 'exists':
        return value !== undefined;
      case 'absent':
        return value === undefined;
      case 'in':
        return value !== undefined && requirement.values.includes(value);
      case 'notin':
        return value === undefined || !requirement.values.includes(value);
    }
  });
}

/** Splits at the commas outside parentheses: `a in (x,y),b` is two requirements. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
