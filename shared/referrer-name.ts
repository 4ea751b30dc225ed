// The referrer's name as a referred friend's welcome shows it (issue #24), by the design's
// `referredExperience.referrerNameFormat` (rest-v2 §2.18): FIRST "Ada", FIRST_LAST_INITIAL "Ada L.",
// FIRST_LAST "Ada Lovelace". A referrer without a first name has no name to show: the welcome then
// uses the design's `referrerNameFallback`. Pure: the participant API formats, tests check it.

/** How the design shows a referrer's name. */
export type ReferrerNameFormat = 'FIRST' | 'FIRST_LAST_INITIAL' | 'FIRST_LAST';

/** The formatted name, or null when there is no first name. */
export function formatReferrerName(first: string | null | undefined, last: string | null | undefined, format: ReferrerNameFormat | undefined = 'FIRST'): string | null {
  const f = first?.trim().replace(/\s+/g, ' ');
  if (!f) return null;
  const l = last?.trim().replace(/\s+/g, ' ');
  if (!l || format === 'FIRST' || !format) return f;
  // The initial is the first user-perceived character (an emoji or accented letter stays whole).
  return format === 'FIRST_LAST' ? `${f} ${l}` : `${f} ${[...l][0]!.toUpperCase()}.`;
}
