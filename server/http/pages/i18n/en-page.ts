// What every server page says when a request goes wrong, owner pages and participant pages alike
// (issue #23). Both server catalogues spread this part in.

export const enPage = {
  'page.notAllowed': 'Not allowed',
  'page.notAccepted': 'Not accepted',
  'page.methodNotAllowed': 'Method not allowed',
  'page.methodNotUsed': '{method} is not used on this page.',
  'page.formNotAccepted': 'Form not accepted',
  'page.formUnreadable': 'The form could not be read. Go back and try again.',
  'page.formTooLarge': 'The form is too large.',
  'page.foreignForm': 'This form was sent from another site.',
  'page.expiredForm': 'This form has expired or did not come from this site. Reload the page and try again.',
  'page.linkInvalid': 'Link not valid',
} as const;
