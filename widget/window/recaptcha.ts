// options.fraud.recaptcha on the page, a lazy chunk: a reCAPTCHA v3 token (action `signup`) for
// each sign-up call. This chunk and Google's script load only while the program has reCAPTCHA on
// and someone signs up; a page that already loaded reCAPTCHA is reused. Without a token the server
// refuses the sign-up with 422, which the sign-up form shows like any other refusal.

interface Grecaptcha {
  ready(cb: () => void): void;
  execute(siteKey: string, opts: { action: string }): PromiseLike<string>;
}

const SCRIPT = 'https://www.google.com/recaptcha/api.js?render=';
const LOAD_TIMEOUT_MS = 10_000;
let loading: Promise<Grecaptcha | null> | null = null;

function current(): Grecaptcha | null {
  const g = (window as { grecaptcha?: Grecaptcha }).grecaptcha;
  return g && typeof g.execute === 'function' && typeof g.ready === 'function' ? g : null;
}

function load(siteKey: string): Promise<Grecaptcha | null> {
  const ready = current();
  if (ready) return Promise.resolve(ready);
  loading ??= new Promise<Grecaptcha | null>((resolve) => {
    const s = document.createElement('script');
    const done = () => {
      clearTimeout(timer);
      resolve(current());
    };
    const timer = setTimeout(done, LOAD_TIMEOUT_MS);
    s.src = SCRIPT + encodeURIComponent(siteKey);
    s.async = true;
    s.onload = done;
    s.onerror = done;
    document.head.appendChild(s);
  }).then((g) => {
    if (!g) loading = null; // try again on the next sign-up
    return g;
  });
  return loading;
}

/** `{recaptchaToken}` for one sign-up call with the program's site key, or `{}` when reCAPTCHA could not run. */
export async function recaptchaField(key: string): Promise<{ recaptchaToken?: string }> {
  const g = await load(key);
  if (!g) return {};
  const token = await new Promise<string | null>((resolve) => g.ready(() => Promise.resolve(g.execute(key, { action: 'signup' })).then(resolve, () => resolve(null))));
  return token ? { recaptchaToken: token } : {};
}
