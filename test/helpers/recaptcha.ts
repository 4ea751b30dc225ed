import http from 'node:http';

/** A reCAPTCHA verification endpoint on loopback (what RECAPTCHA_VERIFY_URL points at in tests). */
export interface Verifier {
  url: string;
  /** Every form it received, oldest first. */
  seen: URLSearchParams[];
  close(): Promise<void>;
}

/** Starts a siteverify stand-in that answers each posted form with `answer(form)` (status 200 unless given). */
export async function startVerifier(answer: (form: URLSearchParams) => { status?: number; body: unknown }): Promise<Verifier> {
  const seen: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      seen.push(form);
      const a = answer(form);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/recaptcha/api/siteverify`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
