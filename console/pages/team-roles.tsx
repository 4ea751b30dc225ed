// The Team page's role change (issue #35, TM8): the Owner opens "Change role" on a member's row and
// chooses Admin or Member and, for a Member, "Manage API". Saving is a sensitive action (the
// password and code again after five minutes) and ends every session of that member, which the
// form says before it is saved.
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { announce, ErrorSummary } from '../ui.tsx';
import { useSensitiveAction } from '../reauth.tsx';
import { Button } from '../components.tsx';
import { t } from '../i18n/index.ts';

/** A member as the role form needs them. */
export interface RoleTarget {
  email: string;
  role: 'ADMIN' | 'MEMBER';
  manageApi: boolean;
}

/** The role form for one member; `onSaved` reloads the list, `onClose` hides the form. */
export function MemberRoleForm({ member, onSaved, onClose }: { member: RoleTarget; onSaved: () => void; onClose: () => void }) {
  const [role, setRole] = useState<'ADMIN' | 'MEMBER'>(member.role);
  const [manageApi, setManageApi] = useState(member.role === 'MEMBER' && member.manageApi);
  const save = useSensitiveAction('reauth-role');
  const unchanged = role === member.role && (role === 'ADMIN' || manageApi === member.manageApi);
  const submit = (e: Event) => {
    e.preventDefault();
    if (unchanged) return onClose();
    void save.run(async () => {
      const done = await api<{ role: 'ADMIN' | 'MEMBER'; manageApi: boolean; sessionsEnded: number }>('PATCH', `/team/members/${encodeURIComponent(member.email)}`, { role, manageApi: role === 'MEMBER' && manageApi });
      const what = t(done.role === 'ADMIN' ? 'roles.nowAdmin' : done.manageApi ? 'roles.nowMemberApi' : 'roles.nowMember', { email: member.email });
      announce(`${what} ${t('roles.signedOut', { count: done.sessionsEnded })}`);
      document.getElementById('members-title')?.focus();
      onSaved();
    });
  };
  return (
    <section class="card role-form" aria-labelledby="role-form-title">
      <h3 id="role-form-title" tabIndex={-1} ref={(el) => el?.focus()}>
        {t('roles.title', { email: member.email })}
      </h3>
      <p id="role-form-hint">{t('roles.hint')}</p>
      {save.form || (
        <form onSubmit={submit} aria-describedby="role-form-hint">
          <ErrorSummary error={save.error} />
          <fieldset>
            <legend>{t('invite.role')}</legend>
            {(['MEMBER', 'ADMIN'] as const).map((r) => (
              <label class="choice" key={r}>
                <input type="radio" name="member-role" value={r} checked={role === r} onChange={() => setRole(r)} />
                <span>{t(r === 'MEMBER' ? 'invite.roleMember' : 'invite.roleAdmin')}</span>
              </label>
            ))}
          </fieldset>
          {role === 'MEMBER' && (
            <label class="choice">
              <input type="checkbox" checked={manageApi} onChange={(e) => setManageApi(e.currentTarget.checked)} />
              <span>{t('invite.manageApi')}</span>
            </label>
          )}
          <div class="buttons">
            <Button type="submit" disabled={save.busy}>
              {save.busy ? t('form.saving') : t('roles.save')}
            </Button>
            <Button kind="secondary" onClick={onClose}>
              {t('reauth.cancel')}
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
