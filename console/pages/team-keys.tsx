// The Team page's API keys (issue #23): the team's active keys (TK1), creating one with scopes and
// program grants whose secret is shown this once (TK2), and revoking (TK3). Only an owner session
// may call these operations; the server refuses API keys and roles without "Manage API".
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { announce, Async, ErrorSummary, Field, SecretBox, useAction } from '../ui.tsx';
import { useSensitiveAction } from '../reauth.tsx';
import { Button, Card, EmptyState, Table } from '../components.tsx';
import { t, when, type MessageKey } from '../i18n/index.ts';
import { SCOPES } from '../../shared/scopes.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

interface ApiKey {
  prefix: string;
  label: string | null;
  scopes: string[];
  programIds: string[] | null;
  createdAt: number;
}

function KeyTable({ keys, teamName, onRevoked }: { keys: ApiKey[]; teamName: string; onRevoked: () => void }) {
  const { error, run } = useAction();
  const revoke = (prefix: string) =>
    run(async () => {
      await api('DELETE', `/team/api-keys/${encodeURIComponent(prefix)}`);
      announce(t('keys.revoked', { prefix }));
      onRevoked();
    }, t('keys.confirmRevoke', { prefix }));
  if (!keys.length) return <EmptyState level={3} title={t('keys.none')} text={t('keys.empty.text')} />;
  return (
    <>
      <ErrorSummary error={error} />
      <Table caption={t('keys.table', { name: teamName })} count={keys.length}>
            <thead>
              <tr>
                <th scope="col">{t('keys.prefix')}</th>
                <th scope="col">{t('keys.label')}</th>
                <th scope="col">{t('keys.scopes')}</th>
                <th scope="col">{t('keys.programs')}</th>
                <th scope="col">{t('keys.created')}</th>
                <th scope="col">{t('keys.action')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.prefix}>
                  <th scope="row">
                    <code>{k.prefix}…</code>
                  </th>
                  <td data-label={t('keys.label')}>{k.label ?? ''}</td>
                  <td data-label={t('keys.scopes')}>{k.scopes.length === SCOPES.length ? t('keys.allScopes') : <ul class="tags">{k.scopes.map((s) => <li key={s}>{s}</li>)}</ul>}</td>
                  <td data-label={t('keys.programs')}>{k.programIds ? k.programIds.join(', ') : t('keys.allPrograms')}</td>
                  <td data-label={t('keys.created')}>{when(k.createdAt)}</td>
                  <td>
                    <Button kind="secondary" size="small" onClick={() => revoke(k.prefix)}>
                      {t('keys.revoke', { prefix: k.prefix })}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
      </Table>
    </>
  );
}

function CreateKey({ programs, onCreated }: { programs: Campaign[]; onCreated: (secret: string, prefix: string) => void }) {
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [grants, setGrants] = useState<Set<string>>(new Set());
  const [label, setLabel] = useState('');
  // Creating a key reveals its secret: the server asks for the password (and code) again first (issue #35).
  const { busy, error, run, form } = useSensitiveAction('reauth-key');
  const toggle = (set: Set<string>, value: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const body = { scopes: SCOPES.filter((s) => scopes.has(s)), programIds: grants.size ? [...grants] : undefined, label: label.trim() || undefined };
      const made = await api<{ apiKey: string; key: ApiKey }>('POST', '/team/api-keys', body);
      setScopes(new Set());
      setGrants(new Set());
      setLabel('');
      onCreated(made.apiKey, made.key.prefix);
    });
  };
  return (
    <Card id="create-key" title={t('keys.create')}>
      <form onSubmit={submit} aria-labelledby="create-key-title">
        <ErrorSummary error={error} />
        <fieldset>
          <legend>{t('keys.scopesLegend')}</legend>
          {SCOPES.map((s) => (
            <label class="choice" key={s}>
              <input type="checkbox" name="scopes" value={s} checked={scopes.has(s)} onChange={(e) => setScopes(toggle(scopes, s, e.currentTarget.checked))} />
              <span>
                <code>{s}</code> <span class="hint">{t(`scope.${s}` as MessageKey)}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {programs.length > 0 && (
          <fieldset>
            <legend>{t('keys.programsLegend')}</legend>
            {programs.map((p) => (
              <label class="choice" key={p.id}>
                <input type="checkbox" name="programIds" value={p.id} checked={grants.has(p.id)} onChange={(e) => setGrants(toggle(grants, p.id, e.currentTarget.checked))} />
                <span>
                  {p.name} <code class="id">{p.id}</code>
                </span>
              </label>
            ))}
          </fieldset>
        )}
        <Field id="key-label" label={t('keys.labelField')}>
          <input id="key-label" value={label} maxLength={100} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
        <Button type="submit" disabled={busy}>
          {busy ? t('form.saving') : t('keys.submit')}
        </Button>
      </form>
      {form}
    </Card>
  );
}

/** The API keys section of the Team page. */
export function TeamKeys({ teamName }: { teamName: string }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [run, setRun] = useState(0);
  const load = () => Promise.all([api<{ apiKeys: ApiKey[] }>('GET', '/team/api-keys'), api<{ campaigns: Campaign[] }>('GET', '/campaigns')]);
  return (
    <>
      {secret && (
        <SecretBox
          titleId="new-key-title"
          level={3}
          focus="title"
          role="status"
          title={t('keys.createdTitle')}
          body={t('keys.createdBody')}
          secret={secret}
          copyLabel={t('keys.copy')}
          copied={t('keys.copied')}
          doneLabel={t('keys.done')}
          onDone={() => setSecret(null)}
        />
      )}
      <Async depKey={`keys-${run}`} load={load}>
        {([keys, programs], reload) => (
          <>
            <Card id="keys" title={t('keys.title')} description={t('keys.intro')} flush>
              <KeyTable keys={keys.apiKeys} teamName={teamName} onRevoked={reload} />
            </Card>
            <CreateKey
              programs={programs.campaigns}
              onCreated={(s, prefix) => {
                setSecret(s);
                announce(t('keys.createdNotice', { prefix }));
                setRun((n) => n + 1);
              }}
            />
          </>
        )}
      </Async>
    </>
  );
}
