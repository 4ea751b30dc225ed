// Program settings, Installation (CF7/CF8): the snippet for the owner's site with a Copy button,
// the few installation choices a store owner makes, and the integrations list (I1) as it is.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, PageTitle } from '../ui.tsx';
import { t } from '../i18n/index.ts';
import { CopyBlock, universalCode } from '../copy.tsx';
import { Link } from '../router.tsx';
import { Group, SaveError, SelectField, TextField } from './settings-kit.tsx';
import type { CampaignInstallation } from '../../shared/schemas/program-config-installation.ts';

type Type = 'REFERRAL' | 'AFFILIATE';
interface Integration {
  id: string;
  name: string;
  connected: boolean;
  enabled: boolean;
  autoDisabled: boolean;
  connectUrl: string;
}

function InstallationForm({ programId, type, saved }: { programId: string; type: Type; saved: CampaignInstallation }) {
  const [shareUrl, setShareUrl] = useState(saved.shareUrl ?? '');
  const [trigger, setTrigger] = useState(saved.referralTrigger ?? 'ON_SIGNUP');
  const [domains, setDomains] = useState(saved.allowedDomains.join('\n'));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = { shareUrl: shareUrl.trim() || null, allowedDomains: domains.split(/[\n,]+/).map((s) => s.trim()).filter(Boolean) };
      if (type === 'REFERRAL') body.referralTrigger = trigger;
      await api('PATCH', `/campaign/${encodeURIComponent(programId)}/installation`, body);
      announce(t('settings.saved'));
    } catch (err) {
      setError(err);
      announce(t('settings.notSaved'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={save} class="settings-form" noValidate>
      <Group id="g-install" title={t('install.choices')}>
        <fieldset disabled={!can('program:write')} class="bare">
          <TextField id="i-shareUrl" field="shareUrl" error={error} type="url" label={t('install.shareUrl')} hint={t('install.shareUrlHint')} value={shareUrl} onInput={setShareUrl} />
          {type === 'REFERRAL' && (
            <SelectField
              id="i-referralTrigger"
              field="referralTrigger"
              error={error}
              label={t('install.trigger')}
              hint={t('install.triggerHint')}
              value={trigger}
              options={[['ON_SIGNUP', t('install.onSignup')] as const, ['CUSTOM', t('install.custom')] as const]}
              onChange={(v) => setTrigger(v as 'ON_SIGNUP' | 'CUSTOM')}
            />
          )}
          <TextField id="i-allowedDomains" field="allowedDomains" error={error} multiline label={t('install.domains')} hint={t('install.domainsHint')} value={domains} onInput={setDomains} />
        </fieldset>
        <SaveError error={error} />
        {can('program:write') && (
          <button type="submit" disabled={busy}>
            {busy ? t('form.saving') : t('settings.save')}
          </button>
        )}
      </Group>
    </form>
  );
}

function Integrations({ list }: { list: Integration[] }) {
  return (
    <section class="card" aria-labelledby="integrations-title">
      <h2 id="integrations-title">{t('install.integrations')}</h2>
      <p class="hint">{t('install.integrationsHint')}</p>
      <ul class="integrations">
        {list.map((i) => (
          <li key={i.id}>
            <Link href={new URL(i.connectUrl, location.href).pathname}>{i.name}</Link> <span class={`badge ${i.connected ? 'status-in_progress' : 'status-draft'}`}>{t(i.connected ? (i.enabled ? 'install.on' : 'install.off') : 'install.notConnected')}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The snippet, with its Copy button (also the guided setup's step 4). */
export function Snippet({ programId }: { programId: string }) {
  return (
    <CopyBlock id="snippet" label={t('install.snippet')} hint={t('install.snippetHint')} text={universalCode(programId)} button={t('install.copy')} />
  );
}

export default function InstallationPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const path = `/campaign/${encodeURIComponent(id)}`;
  return (
    <>
      <PageTitle>{t('settings.installationTitle')}</PageTitle>
      <section class="card" aria-labelledby="snippet-title">
        <h2 id="snippet-title">{t('install.snippetTitle')}</h2>
        <Snippet programId={id} />
      </section>
      <Async
        depKey={id}
        load={() => Promise.all([api<{ type: Type }>('GET', path), api<CampaignInstallation>('GET', `${path}/installation`), api<{ integrations: Integration[] }>('GET', `${path}/integrations`)])}
      >
        {([c, inst, ints]) => (
          <>
            <InstallationForm programId={id} type={c.type} saved={inst} />
            <Integrations list={ints.integrations} />
          </>
        )}
      </Async>
    </>
  );
}
