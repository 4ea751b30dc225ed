// The Outbox page (issue #23): on a server without SMTP, the team's mail newest first (TO1), a page
// at a time, in a table: each message's subject with its links and text, recipient, time and kind;
// "Show older messages" follows the cursor.
import { useState } from 'preact/hooks';
import { api, query, session, type SessionInfo } from '../api.ts';
import { Async, ErrorSummary, useAction } from '../ui.tsx';
import { Button, ButtonLink, Card, EmptyState, PageHeader, Table } from '../components.tsx';
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

function Messages({ first, canInvite }: { first: OutboxPage; canInvite: boolean }) {
  const [pages, setPages] = useState<OutboxPage[]>([first]);
  const { busy, error, run } = useAction();
  const messages = pages.flatMap((p) => p.messages);
  const cursor = pages[pages.length - 1]!.nextCursor;
  const more = () =>
    run(async () => {
      const next = await api<OutboxPage>('GET', `/team/outbox${query({ limit: PAGE, cursor })}`);
      setPages([...pages, next]);
    });
  if (!messages.length)
    return (
      <Card id="no-mail">
        <EmptyState title={t('outbox.none')} text={t('outbox.empty.text')} action={canInvite && <ButtonLink href="/console/team">{t('invite.title')}</ButtonLink>} />
      </Card>
    );
  return (
    <>
      <Table caption={t('outbox.table')} count={messages.length}>
        <thead>
          <tr>
            <th scope="col">{t('outbox.subject')}</th>
            <th scope="col">{t('outbox.to')}</th>
            <th scope="col">{t('outbox.sent')}</th>
            <th scope="col">{t('outbox.kind')}</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((m) => (
            <tr key={m.id}>
              <th scope="row">
                {m.subject}
                {m.links.length > 0 && (
                  <ul class="mail-links" aria-label={t('outbox.links')}>
                    {m.links.map((l) => (
                      <li key={l}>
                        <a href={l} target="_blank" rel="noopener noreferrer">
                          {l}
                        </a>
                      </li>
                    ))}
                  </ul>
                )}
                <details>
                  <summary>{t('outbox.text')}</summary>
                  <pre class="mail-text">{m.text}</pre>
                </details>
              </th>
              <td data-label={t('outbox.to')}>{m.to}</td>
              <td data-label={t('outbox.sent')}>
                <time dateTime={new Date(m.createdAt).toISOString()}>{when(m.createdAt)}</time>
              </td>
              <td data-label={t('outbox.kind')}>
                <code>{m.kind}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <ErrorSummary error={error} />
      {cursor && (
        <Button kind="secondary" disabled={busy} onClick={more}>
          {busy ? t('state.loading') : t('outbox.more')}
        </Button>
      )}
    </>
  );
}

export default function Outbox() {
  const s = session.value as SessionInfo;
  return (
    <>
      <PageHeader title={t('outbox.title')} />
      {s.mailOutbox ? (
        <>
          <p>{t('outbox.intro')}</p>
          <Async depKey="outbox" load={() => api<OutboxPage>('GET', `/team/outbox${query({ limit: PAGE })}`)}>
            {(first) => <Messages first={first} canInvite={!!s.team?.canInvite} />}
          </Async>
        </>
      ) : (
        <Card id="no-outbox">
          <p>{t('outbox.smtp')}</p>
        </Card>
      )}
    </>
  );
}
