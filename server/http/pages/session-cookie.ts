// The owner session's and the remembered browser's cookies (issue #35): HttpOnly, SameSite=Lax for
// the session (a link from another site into the console arrives signed in, a cross-site POST does
// not) and Strict for the device token, which only the sign-in form's own POST needs; Secure
// whenever PUBLIC_URL is https (config.secureCookies).

/** Name of the remembered-browser cookie ("remember this browser for 30 days"). */
export const DEVICE_COOKIE = 'refloop_device';

/** The Set-Cookie value of the owner session (`refloop_session`). */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value of the remembered-browser token, sent only to the sign-in pages. */
export function deviceCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${DEVICE_COOKIE}=${value}; Path=/signin; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
