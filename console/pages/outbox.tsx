// The Outbox page (issue #23): on a server without SMTP, the team's mail newest first (TO1), a page
// at a time, each with its recipient, time, text and links; "Show older messages" follows the cursor.
import { useState } from 'preact/hooks';
import { api, query, session, type SessionInfo } from '../api.ts';
import { Async, ErrorSummary, PageTitle, useAction } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';

interface Message {
  id: string;
  to: string;
  subject: string;
  kind: string;
  text: string;
  links: string[];
  createdAt: number;
}
interface OutboxPage {
  messages: Message[];
  nextCursor: string | null;
}

const PAGE = 20;

function Messages({ first }: { first: OutboxPage }) {
  const [pages, setPages] = useState<OutboxPage[]>([first]);
  const { busy, error, run } = useAction();
  const messages = pages.flatMap((p) => p.messages);
  const cursor = pages[pages.length - 1]!.nextCursor;
  const more = () =>
    run(async () => {
      const next = await api<OutboxPage>('GET', `/team/outbox${query({ limit: PAGE, cursor })}`);
      setPages([...pages, next]);
    });
  if (!messages.length) return <p>{t('outbox.none')}</p>;
  return (
    <>
      <p aria-live="polite">{t('outbox.count', { count: messages.length })}</p>
      <ol class="outbox">
        {messages.map((m) => (
          <li key={m.id} class="card">
            <article aria-labelledby={`mail-${m.id}`}>
              <h2 id={`mail-${m.id}`}>{m.subject}</h2>
              <p class="meta">
                <span>{t('outbox.to', { to: m.to })}</span> · <time dateTime={new Date(m.createdAt).toISOString()}>{when(m.createdAt)}</time> · <code>{m.kind}</code>
              </p>
              {m.links.length > 0 && (
                <>
                  <h3 class="visually-hidden">{t('outbox.links')}</h3>
                  <ul class="mail-links">
                    {m.links.map((l) => (
                      <li key={l}>
                        <a href={l} target="_blank" rel="noopener noreferrer">
                          {l}
                        </a>
                      </li>
                    ))}
                  </ul>
                </>
              )}
              <details>
                <summary>{t('outbox.text')}</summary>
                <pre>{m.text}</pre>
              </details>
            </article>
          </li>
        ))}
      </ol>
      <ErrorSummary error={error} />
      {cursor && (
        <button type="button" class="secondary" disabled={busy} onClick={more}>
          {busy ? t('state.loading') : t('outbox.more')}
        </button>
      )}
    </>
  );
}

export default function Outbox() {
  const s = session.value as SessionInfo;
  return (
    <>
      <PageTitle>{t('outbox.title')}</PageTitle>
      {s.mailOutbox ? (
        <>
          <p>{t('outbox.intro')}</p>
          <Async depKey="outbox" load={() => api<OutboxPage>('GET', `/team/outbox${query({ limit: PAGE })}`)}>
            {(first) => <Messages first={first} />}
          </Async>
        </>
      ) : (
        <p>{t('outbox.smtp')}</p>
      )}
    </>
  );
}
