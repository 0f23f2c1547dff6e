/**
 * Converts a bracket name (`theta[1]`, `L[1,2]`) to Stan CSV's dotted form
 * (`theta.1`, `L.1.2`); names without brackets are returned unchanged.
 */
export function toStanCsvName(name: string): string {
  const match = /^([^[\]]+)\[([^[\]]*)\]$/.exec(name.trim());
  if (match === null) return name;
  const indices = match[2]!.split(",").map((s) => s.trim());
  return [match[1]!, ...indices].join(".");
}

/**
 * Converts a Stan CSV dotted name (`theta.1`, `L.1.2`) to bracket form
 * (`theta[1]`, `L[1,2]`); names whose dotted parts are not all positive
 * integers are returned unchanged.
 */
export function fromStanCsvName(name: string): string {
  const parts = name.split(".");
  if (parts.length < 2) return name;
  const indices = parts.slice(1);
  if (!indices.every((p) => /^[1-9][0-9]*$/.test(p))) return name;
  return `${parts[0]!}[${indices.join(",")}]`;
}
