/** A plot in its frame: the unit the report's layout and its test count. */
export function panel(kind: string, svgText: string): string {
  return `<figure class="panel" data-panel="${kind}">${svgText}</figure>`;
}
