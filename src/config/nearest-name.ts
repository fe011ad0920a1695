/**
 * "Did you mean …?": the known name nearest to a mistyped one (a subcommand, an option), by edit distance with
 * swapped neighbours counting as one edit (hisotry → history), or the one name it begins, or null when none is near.
 */

/** Longer input is not a typo of a short name; it is not compared at all. */
const MAX_COMPARED = 64;

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: the optimal string alignment distance. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

export function nearestName(typed: string, names: readonly string[]): string | null {
  const wanted = typed.toLowerCase();
  if (wanted.length === 0 || wanted.length > MAX_COMPARED) return null;
  let nearest: { name: string; distance: number } | null = null;
  for (const name of names) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (!nearest || distance < nearest.distance) nearest = { name, distance };
  }
  // One slip in a short name, two in a longer one; more than that is another word.
  if (nearest && nearest.distance <= (wanted.length >= 5 ? 2 : 1)) return nearest.name;
  const begun = names.filter((name) => name.toLowerCase().startsWith(wanted));
  return wanted.length >= 2 && begun.length === 1 ? (begun[0] as string) : null;
}
