// The text of a spec.rollout.analysis.metrics query, with its `{{ .Name }}` variables filled in for
// the build judged. Only the variables below exist; admission refuses any other, so rendering never
// meets one. Pure.

/** The variables a query may use, as Go templates write them: `{{ .BuildID }}`. */
export const QUERY_VARIABLES = ['BuildID', 'DeploymentName', 'Namespace', 'Window'] as const;

export type QueryVariables = Record<(typeof QUERY_VARIABLES)[number], string>;

/** Every `{{ ... }}` of a query, and the variable each names, if it is one of ours. */
const PLACEHOLDER = /\{\{([^}]*)\}\}/g;
const VARIABLE = /^ *\.([A-Za-z]+) *$/;

/** Admission's CEL rule: each placeholder (RE2; classes rather than backslashes, which CEL's strings would escape). */
export const PLACEHOLDER_CEL = `self.query.findAll('[{][{][^}]*[}][}]').all(p, p.matches('^[{][{] *[.](${QUERY_VARIABLES.join('|')}) *[}][}]$'))`;

/** The placeholders of `query` that name no variable of ours, as written. */
export function unknownPlaceholders(query: string): string[] {
  return [...query.matchAll(PLACEHOLDER)]
    .filter(([, inner]) => !isVariable(VARIABLE.exec(inner ?? '')?.[1]))
    .map(([whole]) => whole);
}

export function renderQuery(query: string, values: QueryVariables): string {
  return query.replace(PLACEHOLDER, (whole, inner: string) => {
    const name = VARIABLE.exec(inner)?.[1];
    return isVariable(name) ? values[name] : whole;
  });
}

/** A window's length as a Prometheus duration: whole seconds, at least one. */
export function promDuration(seconds: number): string {
  return `${Math.max(1, Math.floor(seconds))}s`;
}

function isVariable(name: string | undefined): name is (typeof QUERY_VARIABLES)[number] {
  return (QUERY_VARIABLES as readonly string[]).includes(name ?? '');
}
