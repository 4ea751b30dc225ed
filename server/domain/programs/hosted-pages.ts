// Where a program's participants land and sign in when its site does not embed the widget: the
// hosted landing page `/p/{programId}` and participant portal `/p/{programId}/portal`, driven by
// the design's `landingPages` section (issue #24). One rule for the share-link route, the pages
// themselves, the sign-in links and the participant emails.
import type { Program } from './programs.ts';
import { completedDocument } from './program-config.ts';

/**
 * The program's own site, where its share links should land: installation.shareUrl, else the
 * design's company website unless the design turns the hosted landing page on (then the website is
 * only the landing page's company link); null when share links land on the hosted landing page.
 */
export function programSite(program: Program): string | null {
  const installation = completedDocument('installation', program, program.documents.installation);
  if (installation.shareUrl) return installation.shareUrl;
  const design = completedDocument('design', program, program.documents.design);
  return design.landingPages.isEnabled ? null : (design.landingPages.company.websiteUrl ?? null);
}

/**
 * Whether the hosted landing page and portal exist for the program: the design switches them on
 * (`landingPages.isEnabled`), or the program has no site (none, or only a page of this server), so
 * they are where its share links land.
 */
export function hostedPagesOn(program: Program, publicUrl: string): boolean {
  if (completedDocument('design', program, program.documents.design).landingPages.isEnabled) return true;
  const site = programSite(program);
  return site === null || ownPage(site, program.id, publicUrl);
}

/** Whether `site` is one of this server's own pages of the program (`/r/{id}` or `/p/{id}`): no site of its own either. */
function ownPage(site: string, programId: string, publicUrl: string): boolean {
  try {
    const u = new URL(site);
    const m = /^\/[rp]\/([^/]+)/.exec(u.pathname);
    return u.origin === new URL(publicUrl).origin && decodeURIComponent(m?.[1] ?? '') === programId;
  } catch {
    return false;
  }
}

/** Whether the design itself asks for the hosted pages (`landingPages.isEnabled`): participant emails then link to the portal. */
export function portalLinkedFromEmails(program: Program): boolean {
  return completedDocument('design', program, program.documents.design).landingPages.isEnabled;
}

/** The hosted landing page's address. */
export function landingPageUrl(programId: string, publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/p/${encodeURIComponent(programId)}`;
}

/** The hosted participant portal's address. */
export function portalUrl(programId: string, publicUrl: string): string {
  return `${landingPageUrl(programId, publicUrl)}/portal`;
}
