import { portArgument, serveBare } from './bare-server.ts';

// The floor under the visit rows of `npm run bench`: a bare node:http server (no Koa, no database)
// that does what any visit endpoint must: read the POST body, parse it as JSON, check it names a
// visit id, and answer an MV1-shaped RECORDED JSON of the same size (two receipt-length strings).
// Usage: node bench/bare-visit.ts PORT (through tsx, like bare-koa.ts)

const port = portArgument('bare-visit.ts');

/** A receipt-sized string: MV1's receipts are about this long. */
const RECEIPT = 'r'.repeat(120);

serveBare(port, (req, res) => {
  if (req.method === 'GET' && req.url === '/ok') {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end('{"ok":true}');
    return;
  }
  if (req.method !== 'POST' || req.url !== '/mobile/v2/visits') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let visitId: unknown;
    try {
      visitId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { visitId?: unknown }).visitId;
    } catch {
      visitId = undefined;
    }
    if (typeof visitId !== 'string') {
      res.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8' }).end('{"status":400}');
      return;
    }
    const json = JSON.stringify({ status: 'RECORDED', visitId, receipts: { firstVisit: RECEIPT, lastVisit: RECEIPT } });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) }).end(json);
  });
});
