// A person-readable summary of a User-Agent header ("Chrome 156 on Linux", "curl 8.5"), for the
// audit log (issue #35). Coarse on purpose: the browser or client family with its major version,
// and the operating system when the header names one; the whole header stays in the entry and its
// CSV. Brand tokens come before the engines they carry (Edge and Opera send "Chrome", Chrome sends
// "Safari"), so the order of the rules matters.

/** [pattern, name]: the first match names the client, its first group the version. */
const CLIENTS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/^curl\/(\d+(?:\.\d+)?)/, 'curl'],
  [/^python-requests\/(\d+(?:\.\d+)?)/, 'Python requests'],
  [/^python-httpx\/(\d+(?:\.\d+)?)/, 'Python httpx'],
  [/^Python-urllib\/(\d+(?:\.\d+)?)/, 'Python'],
  [/^axios\/(\d+(?:\.\d+)?)/, 'axios'],
  [/^(?:node|undici)(?:-fetch)?(?:\/(\d+))?/i, 'Node.js'],
  [/^Go-http-client\/(\d+(?:\.\d+)?)/, 'Go'],
  [/^Ruby/, 'Ruby'],
  [/^PostmanRuntime\/(\d+(?:\.\d+)?)/, 'Postman'],
  [/^Wget\/(\d+(?:\.\d+)?)/, 'Wget'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** The client and operating system a User-Agent names; `client` falls back to the header's first product token. */
export function userAgentSummary(header: string | null | undefined): { client: string; system: string | null } | null {
  const ua = (header ?? '').trim();
  if (!ua) return null;
  let client: string | null = null;
  for (const [re, name] of CLIENTS) {
    const m = re.exec(ua);
    if (m) {
      client = m[1] ? `${name} ${m[1]}` : name;
      break;
    }
  }
  client ??= (/^[^\s/;()]{1,40}/.exec(ua)?.[0] ?? ua.slice(0, 40));
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? null;
  return { client, system };
}
