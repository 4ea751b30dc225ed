import type { Knex } from 'knex';
import type { Activity } from '../platform/activity.ts';
import { ACTIONS } from '../platform/activity.ts';
import type { Participants } from './service.ts';
import type { ParticipantRow } from './model.ts';

// What the participants core does, written to the activity log through its hooks (inside the same
// transaction as the change). Rows name other participants by email in `text` for the owner and by
// id in `data`, so a deletion can scrub the email from the logs that mention it.

const STATUS_TEXT: Record<string, string> = {
  CREDIT_PENDING: 'credit pending',
  CREDIT_AWARDED: 'credit awarded',
  CREDIT_EXPIRED: 'credit expired',
  INVITE_SENT: 'invite sent',
};

/** Text for a referral status (null = no referral). */
function statusText(status: string | null): string {
  return status ? (STATUS_TEXT[status] ?? status) : 'no referral';
}

/** Registers the participants core's activity rows: joined, referred someone, referral status changed, deleted. */
export function registerParticipantActivity(participants: Participants, activity: Activity): void {
  // A sign-up's rows (joined, referral created or credited, invite joined, email sent or skipped) in one INSERT.
  participants.hooks.activityBatch = (trx, work) => activity.batched(trx, work);
  participants.hooks.created.push(async (trx, program, p, _ledger, referrerRow) => {
    const referrer = p.referred_by ? (referrerRow?.email ?? 'a participant') : null;
    await activity.record(trx, {
      programId: program.id,
      participantId: p.id,
      type: 'COMMON',
      action: ACTIONS.participantJoined,
      text: referrer ? `Joined the program, referred by ${referrer}` : 'Joined the program',
      data: { referrerId: p.referred_by, referralSource: p.referral_source },
    });
    // A referral credited at sign-up is logged by the referralCredited hook below.
    if (p.referred_by && p.referral_status !== 'CREDIT_AWARDED') {
      await activity.record(trx, {
        programId: program.id,
        participantId: p.referred_by,
        type: 'REFERRAL',
        action: ACTIONS.referralCreated,
        text: `Referred ${p.email} (${statusText(p.referral_status)})`,
        data: { referredId: p.id, status: p.referral_status },
      });
    }
  });

  participants.hooks.referralCredited.push(async (trx, program, referrer, referred) => {
    await activity.record(trx, {
      programId: program.id,
      participantId: referrer.id,
      type: 'REFERRAL',
      action: ACTIONS.referralCredited,
      text: `Referral credit awarded for ${referred.email}`,
      data: { referredId: referred.id, status: 'CREDIT_AWARDED' },
    });
  });

  participants.hooks.referralChanged.push(async (trx, program, referred, change) => {
    const moved = change.fromReferrer !== change.toReferrer;
    if (moved && change.fromReferrer) {
      await activity.record(trx, {
        programId: program.id,
        participantId: change.fromReferrer,
        type: 'REFERRAL',
        action: ACTIONS.referralRemoved,
        text: `Referral ${referred.email} moved to another referrer`,
        data: { referredId: referred.id, status: null },
      });
    }
    if (!change.toReferrer || change.to === 'CREDIT_AWARDED') return; // credits: referralCredited
    await activity.record(trx, {
      programId: program.id,
      participantId: change.toReferrer,
      type: 'REFERRAL',
      action: moved ? ACTIONS.referralCreated : ACTIONS.referralStatus,
      text: moved ? `Referred ${referred.email} (${statusText(change.to)})` : `Referral ${referred.email}: ${statusText(change.from)} → ${statusText(change.to)}`,
      data: { referredId: referred.id, status: change.to },
    });
  });

  participants.hooks.deleting.push(async (trx, program, ids) => {
    const rows: Array<Pick<ParticipantRow, 'id' | 'referred_by'>> = await trx('participants').whereIn('id', ids).select('id', 'referred_by');
    for (const row of rows) {
      // The deleted participant's own rows go with it (cascade); the logs that name them keep the
      // event but lose the email.
      if (row.referred_by) {
        await trx('activity_logs')
          .where({ participant_id: row.referred_by, type: 'REFERRAL' })
          .where('data', 'like', `%"referredId":"${row.id}"%`)
          .update({ text: 'Referral of a participant who was later deleted' });
        await activity.record(trx, {
          programId: program.id,
          participantId: row.referred_by,
          type: 'REFERRAL',
          action: ACTIONS.referralRemoved,
          text: 'Referral removed: the referred participant was deleted',
          data: { referredId: row.id, status: null },
        });
      }
      const referred: Array<{ id: string }> = await trx('participants').where({ referred_by: row.id }).select('id');
      for (let i = 0; i < referred.length; i += 500) {
        await trx('activity_logs')
          .whereIn(
            'participant_id',
            referred.slice(i, i + 500).map((r) => r.id),
          )
          .where({ action: ACTIONS.participantJoined })
          .update({ text: 'Joined the program, referred by a participant who was later deleted' });
      }
      await activity.record(trx, {
        programId: program.id,
        participantId: null,
        type: 'COMMON',
        action: ACTIONS.participantDeleted,
        text: `Participant ${row.id} deleted`,
        data: { participantId: row.id },
      });
    }
  });
}
