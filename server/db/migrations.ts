import type { Knex } from 'knex';
import * as m001 from './migrations/001_foundation.ts';
import * as m002 from './migrations/002_programs.ts';
import * as m003 from './migrations/003_reward_configs.ts';
import * as m004 from './migrations/004_webhooks.ts';
import * as m005 from './migrations/005_resources.ts';
import * as m006 from './migrations/006_participants.ts';
import * as m007 from './migrations/007_activity.ts';
import * as m008 from './migrations/008_rewards.ts';
import * as m009 from './migrations/009_invites_emails.ts';
import * as m010 from './migrations/010_fraud.ts';
import * as m011 from './migrations/011_analytics.ts';
import * as m012 from './migrations/012_mobile.ts';
import * as m013 from './migrations/013_affiliate_enrollment.ts';
import * as m014 from './migrations/014_affiliate_money.ts';
import * as m015 from './migrations/015_mcp_oauth.ts';
import * as m016 from './migrations/016_participant_api_gaps.ts';
import * as m017 from './migrations/017_payout_providers.ts';
import * as m018 from './migrations/018_rank_histogram.ts';
import * as m019 from './migrations/019_oauth_expiry_indexes.ts';
import * as m020 from './migrations/020_team_notifications.ts';
import * as m021 from './migrations/021_participant_login_tokens.ts';
import * as m022 from './migrations/022_commission_adjusted_at.ts';
import * as m023 from './migrations/023_visit_counter_fold.ts';
import * as m024 from './migrations/024_webhook_failing_since.ts';
import * as m025 from './migrations/025_owner_queues.ts';
import * as m026 from './migrations/026_participant_list_indexes.ts';
import * as m027 from './migrations/027_team_outbox.ts';
import * as m028 from './migrations/028_team_invitation_ids.ts';
import * as m029 from './migrations/029_reward_config_starter.ts';
import * as m030 from './migrations/030_billing_integrations.ts';
import * as m031 from './migrations/031_billing_codes.ts';
import * as m032 from './migrations/032_program_translations.ts';
import * as m033 from './migrations/033_billing_links.ts';
import * as m034 from './migrations/034_program_counters.ts';
import * as m035 from './migrations/035_imports.ts';
import * as m036 from './migrations/036_console_imports.ts';
import * as m037 from './migrations/037_two_factor_sessions.ts';
import * as m038 from './migrations/038_audit_log.ts';
import * as m039 from './migrations/039_session_end_reason.ts';

/** A migration: name plus up/down, kept in code so the CLI, tests and the server share one ordered list. */
interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Migration[] = [
  { name: '001_foundation', ...m001 },
  { name: '002_programs', ...m002 },
  { name: '003_reward_configs', ...m003 },
  { name: '004_webhooks', ...m004 },
  { name: '005_resources', ...m005 },
  { name: '006_participants', ...m006 },
  { name: '007_activity', ...m007 },
  { name: '008_rewards', ...m008 },
  { name: '009_invites_emails', ...m009 },
  { name: '010_fraud', ...m010 },
  { name: '011_analytics', ...m011 },
  { name: '012_mobile', ...m012 },
  { name: '013_affiliate_enrollment', ...m013 },
  { name: '014_affiliate_money', ...m014 },
  { name: '015_mcp_oauth', ...m015 },
  { name: '016_participant_api_gaps', ...m016 },
  { name: '017_payout_providers', ...m017 },
  { name: '018_rank_histogram', ...m018 },
  { name: '019_oauth_expiry_indexes', ...m019 },
  { name: '020_team_notifications', ...m020 },
  { name: '021_participant_login_tokens', ...m021 },
  { name: '022_commission_adjusted_at', ...m022 },
  { name: '023_visit_counter_fold', ...m023 },
  { name: '024_webhook_failing_since', ...m024 },
  { name: '025_owner_queues', ...m025 },
  { name: '026_participant_list_indexes', ...m026 },
  { name: '027_team_outbox', ...m027 },
  { name: '028_team_invitation_ids', ...m028 },
  { name: '029_reward_config_starter', ...m029 },
  { name: '030_billing_integrations', ...m030 },
  { name: '031_billing_codes', ...m031 },
  { name: '032_program_translations', ...m032 },
  { name: '033_billing_links', ...m033 },
  { name: '034_program_counters', ...m034 },
  { name: '035_imports', ...m035 },
  { name: '036_console_imports', ...m036 },
  { name: '037_two_factor_sessions', ...m037 },
  { name: '038_audit_log', ...m038 },
  { name: '039_session_end_reason', ...m039 },
];

/** knex migration source over the in-code list (no file globbing, so it works under tsx and bundlers). */
export const migrationSource: Knex.MigrationSource<Migration> = {
  async getMigrations() {
    return migrations;
  },
  getMigrationName(m) {
    return m.name;
  },
  async getMigration(m) {
    return m;
  },
};
