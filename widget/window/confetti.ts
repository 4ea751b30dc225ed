// Confetti when a referred friend claims the offer (design `referredExperience.isOfferPopupConfettiEnabled`,
// rest-v2 §2.18; issue #24). A lazy chunk of its own, fetched only when the design asks and the
// visitor's system allows motion: `prefers-reduced-motion: reduce` draws nothing. One fixed canvas
// over the page that ignores the pointer (input never waits), hidden from assistive technology,
// removed after its last frame. Counted in frames, not time, so a slow machine shows all of it.

/** Frames the burst lasts (about 2.5 s at 60 frames a second). */
const FRAMES = 150;

/** Throws one burst from the upper middle of the viewport, in the given colours; none under reduced motion. */
export function confetti(colours: string[]): HTMLCanvasElement | null {
  if (matchMedia('(prefers-reduced-motion: reduce)').matches) return null;
  const c = document.createElement('canvas');
  c.setAttribute('data-grsf-confetti', '');
  c.setAttribute('aria-hidden', 'true');
  c.style.cssText = 'position:fixed;inset:0;width:100vw;height:100vh;pointer-events:none;z-index:2147483647';
  const w = (c.width = innerWidth);
  const h = (c.height = innerHeight);
  const x = c.getContext('2d');
  if (!x) return null;
  document.body.append(c);
  const bits = Array.from({ length: 120 }, (_, i) => ({
    x: w / 2,
    y: h / 3,
    vx: (Math.random() - 0.5) * 18,
    vy: -4 - Math.random() * 12,
    a: Math.random() * 6,
    s: 5 + Math.random() * 5,
    c: colours[i % colours.length]!,
  }));
  let n = 0;
  const frame = () => {
    x.setTransform(1, 0, 0, 1, 0, 0);
    x.clearRect(0, 0, w, h);
    for (const b of bits) {
      b.vy += 0.35;
      b.vx *= 0.99;
      b.x += b.vx;
      b.y += b.vy;
      b.a += 0.12;
      x.setTransform(Math.cos(b.a), Math.sin(b.a), -Math.sin(b.a), Math.cos(b.a), b.x, b.y);
      x.fillStyle = b.c;
      x.fillRect(-b.s / 2, -b.s / 4, b.s, b.s / 2);
    }
    if (++n < FRAMES) requestAnimationFrame(frame);
    else c.remove();
  };
  requestAnimationFrame(frame);
  return c;
}
