// A labelled input: the sign-up form's and the other forms' (login, invitations, the affiliate
// application). Its own module (issue #32 moved it out of ui.tsx, which ships with the window's first
// load), so the visitor's first paint brings it without the lazy panels' kit.tsx.

/** A labelled input (the label element gives it its accessible name). */
export function Field(props: { label: string; name: string; type?: string; required?: boolean; value?: string; placeholder?: string; multiline?: boolean }) {
  // The initial value only: typing must survive re-renders.
  const { label, multiline, value, ...rest } = props;
  return (
    <label>
      {label}
      {multiline ? <textarea {...rest} defaultValue={value} rows={4} /> : <input {...rest} defaultValue={value} type={(rest.type ?? 'text') as 'text'} />}
    </label>
  );
}
