import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  type CreatedInvitation,
  DEFAULT_INVITATION_DAYS,
  MAX_INVITATION_DAYS,
  ROLES,
  type Role,
} from '@tessera/shared';
import { type FormEvent, useId, useState } from 'react';
import { fieldErrorsOf, messageOf, useTRPC } from '../../lib/trpc';
import { CopyButton } from '../CopyButton';
import { Field } from '../Field';

/** Creates an invitation link; the link is shown here once (the server keeps only its hash). */
export function InviteForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roleId = useId();
  const [role, setRole] = useState<Role>('developer');
  const [days, setDays] = useState(String(DEFAULT_INVITATION_DAYS));
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const invite = useMutation(
    trpc.teams.invite.mutationOptions({
      onSuccess: async (invitation) => {
        setCreated(invitation);
        setErrors({});
        await queryClient.invalidateQueries({ queryKey: trpc.teams.invitations.queryKey() });
      },
      onError: (err) => setErrors(fieldErrorsOf(err)),
    }),
  );
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    invite.mutate({ role, expiresInDays: Number(days) });
  };
  const link = created ? `${window.location.origin}${created.path}` : '';
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      <div className="field">
        <label htmlFor={roleId}>Role</label>
        <select id={roleId} name="role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <Field
        label="Link expires after (days)"
        name="expiresInDays"
        type="number"
        min={1}
        max={MAX_INVITATION_DAYS}
        value={days}
        onChange={(e) => setDays(e.target.value)}
        hint={`1 to ${MAX_INVITATION_DAYS} days.`}
        error={errors.expiresInDays}
      />
      {invite.isError && !Object.keys(errors).length && (
        <p className="form-error" role="alert">
          {messageOf(invite.error)}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={invite.isPending}>
        {invite.isPending ? 'Creating…' : 'Create invitation link'}
      </button>
      {created && (
        <div className="reveal" role="status">
          <p className="warning">
            Send this link to the person you invite ({created.role}). It is shown only now, works once, until{' '}
            {new Date(created.expiresAt).toLocaleString()}.
          </p>
          <div className="secret-row">
            <code className="secret" data-testid="invitation-link">
              {link}
            </code>
            <CopyButton text={link} label="Copy link" />
          </div>
        </div>
      )}
    </form>
  );
}
