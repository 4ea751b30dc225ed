import { describe, expect, it } from 'vitest';
import { brandColors, contrastRatio, draftBrandColors, readableOn } from '../../shared/brand.ts';
import { defaultDesign } from '../../server/domain/programs/program-config-default-design.ts';

// Issue #32: the colours that follow the brand, and the console's view of an unsaved draft.

const stock = () => defaultDesign('REFERRAL', null);
const withTheme = (d: ReturnType<typeof stock>, theme: Record<string, unknown>) => ({ ...d, theme: { ...d.theme, ...theme } });

describe('brandColors', () => {
  it('fills the followers that hold their stock value and keeps the owner’s', () => {
    const d = brandColors(withTheme(stock(), { primaryColor: '#8b4513', widget: { ...stock().theme.widget, color: '#ffeecc' } }));
    expect(d.theme.widget.backgroundColor).toBe('#8b4513');
    expect(d.theme.widget.color).toBe('#ffeecc');
    expect(d.landingPages.styles.accentColor).toBe('#8b4513');
    expect(stock().theme.widget.backgroundColor).toBe('#4f46e5');
  });

  it('chooses black or white by the higher WCAG contrast', () => {
    for (const c of ['#8b4513', '#fde68a', '#4f46e5', '#777777', '#0f766e', '#ffff00']) expect(contrastRatio(c, readableOn(c))!).toBeGreaterThanOrEqual(4.5);
    expect(readableOn('#ffff00')).toBe('#000000');
  });
});

describe('draftBrandColors (the console’s unsaved draft)', () => {
  it('lets followers shown as derived follow an unsaved main colour, and leaves edited or chosen ones', () => {
    const saved = brandColors(withTheme(stock(), { primaryColor: '#8b4513' }));
    const draft = withTheme(saved, { primaryColor: '#166534' });
    const shown = draftBrandColors(saved, draft);
    expect(shown.theme.widget.backgroundColor).toBe('#166534');
    expect(shown.landingPages.styles.accentColor).toBe('#166534');

    const chosen = brandColors(withTheme(stock(), { primaryColor: '#8b4513', widget: { ...stock().theme.widget, backgroundColor: '#0f766e' } }));
    expect(draftBrandColors(chosen, withTheme(chosen, { primaryColor: '#166534' })).theme.widget.backgroundColor).toBe('#0f766e');

    const edited = { ...draft, theme: { ...draft.theme, widget: { ...draft.theme.widget, backgroundColor: '#be123c' } } };
    expect(draftBrandColors(saved, edited).theme.widget.backgroundColor).toBe('#be123c');
    expect(draftBrandColors(saved, saved)).toEqual(saved);
  });
});
