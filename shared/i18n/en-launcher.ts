// English words of the corner launcher (widget/attribution/launcher-ui.ts), shipped in the launcher
// drawing's chunk, which has no framework and no `t` of the window. The design's own texts
// (`design.widget`) win; these are what a blank design text falls back to, and the name of the
// button that hides the launcher. Other languages: ./launcher.ts, sent by the window payload (MW1
// `launcherTexts`) to readers of those languages only, so English pages carry no other language.

/** The launcher's English words. */
export const enLauncher = {
  visitor: 'Refer a friend',
  participant: 'Your referral link',
  button: 'Refer & earn',
  hide: 'Hide',
} as const;
