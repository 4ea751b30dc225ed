// The OAuth consent page of the MCP connection (issue #23).

export const enOAuth = {
  'oauth.title': 'Connect an application',
  'oauth.heading': 'Connect {client}',
  'oauth.intro': '{client} (returns to {host}) asks to manage one of your teams through the MCP connection.',
  'oauth.anApplication': 'An application',
  'oauth.teamLegend': 'Team the connection acts on',
  'oauth.allowed': 'It will be allowed to',
  'oauth.scope': '{scope} — {description}',
  'oauth.terms': 'It shares the team’s API rate limits. You can revoke it at any time; it never receives your password or API keys.',
  'oauth.approve': 'Approve',
  'oauth.deny': 'Deny',
  'oauth.signinIntro': 'Sign in to connect an application to one of your teams.',
  'oauth.invalid.title': 'Request not valid',
  'oauth.clientGone': 'The application that started this request is no longer registered.',
  'oauth.noTeams': 'You do not manage API access for any team. Ask a team Owner or Admin to connect it.',
  'oauth.expired.title': 'Request expired',
  'oauth.expired.heading': 'This authorization request is not valid',
  'oauth.expired.body': 'It is unknown or expired. Start connecting again from your application.',
  'oauth.chooseDecision': 'Choose Approve or Deny.',
  'oauth.chooseTeam': 'Choose one of the teams listed.',
} as const;
