import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type MemberView, ROLES, type Role } from '@tessera/shared';
import { useState } from 'react';
import { ScrollRegion } from '../components/ScrollRegion';
import { ErrorState, Loading } from '../components/States';
import { InviteForm } from '../components/teams/InviteForm';
import { date, relativeTime } from '../lib/format';
import { useRole } from '../lib/role';
import { messageOf, useTRPC } from '../lib/trpc';

/** Members and their roles, invitations; owners change them, admins read them, others are told why not. */
export function MembersPage() {
  const role = useRole();
  if (!role.can('members.read')) {
    return (
      <section aria-labelledby="members-title">
        <h1 id="members-title">Members</h1>
        <p className="muted">{role.reason('members.read')}</p>
      </section>
    );
  }
  return <Members />;
}

function Members() {
  const trpc = useTRPC();
  const role = useRole();
  const manage = role.can('members.manage');
  const members = useQuery(trpc.teams.members.queryOptions());
  const invitations = useQuery(trpc.teams.invitations.queryOptions());
  const [status, setStatus] = useState('');
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p className="lede">
        Owners manage the plan, members and keys; admins manage every key; developers use test keys and their
        own live keys; viewers read the dashboard.
      </p>
      <p className="sr-only" role="status">
        {status}
      </p>
      {!manage && <p className="muted">{role.reason('members.manage')}</p>}
      {members.isPending ? (
        <Loading label="Loading members" />
      ) : members.isError ? (
        <ErrorState message={messageOf(members.error)} onRetry={() => members.refetch()} />
      ) : (
        <ScrollRegion label="Members">
          <table className="stack">
            <caption className="sr-only">Members</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col">Live keys</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => (
                <MemberRow
                  key={m.userId}
                  member={m}
                  members={members.data}
                  manage={manage}
                  onStatus={setStatus}
                />
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {manage && <InviteForm />}
      <h2>Pending invitations</h2>
      {invitations.isPending ? (
        <Loading label="Loading invitations" />
      ) : invitations.isError ? (
        <ErrorState message={messageOf(invitations.error)} onRetry={() => invitations.refetch()} />
      ) : invitations.data.length === 0 ? (
        <p className="muted">No pending invitations.</p>
      ) : (
        <ul className="plain-list" aria-label="Pending invitations">
          {invitations.data.map((i) => (
            <li key={i.id}>
              <span className="badge">{i.role}</span> invited {relativeTime(i.createdAt)}
              {i.invitedBy && ` by ${i.invitedBy}`}, expires {date(i.expiresAt)}{' '}
              {manage && <RevokeInvitation id={i.id} onRevoked={() => setStatus('Invitation revoked.')} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RevokeInvitation({ id, onRevoked }: { id: string; onRevoked: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.teams.revokeInvitation.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.teams.invitations.queryKey() });
        onRevoked();
      },
    }),
  );
  return (
    <button
      type="button"
      className="btn btn-small"
      disabled={revoke.isPending}
      onClick={() => revoke.mutate({ id })}
    >
      Revoke
    </button>
  );
}

function MemberRow({
  member,
  members,
  manage,
  onStatus,
}: {
  member: MemberView;
  members: MemberView[];
  manage: boolean;
  onStatus: (text: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const role = useRole();
  const [removing, setRemoving] = useState(false);
  const [heir, setHeir] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.teams.members.queryKey() });
  const changeRole = useMutation(
    trpc.teams.changeRole.mutationOptions({
      onSuccess: async (_, input) => {
        await refresh();
        onStatus(`${member.email} is now ${input.role}.`);
      },
    }),
  );
  const remove = useMutation(
    trpc.teams.removeMember.mutationOptions({
      onSuccess: async (result) => {
        setRemoving(false);
        await refresh();
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        onStatus(
          result.transferredKeys
            ? `${member.email} removed; ${result.transferredKeys} key(s) transferred.`
            : `${member.email} removed; ${result.revokedKeys} key(s) revoked.`,
        );
      },
    }),
  );
  const self = member.userId === role.userId;
  const others = members.filter((m) => m.userId !== member.userId);
  const error = changeRole.error ?? remove.error;
  return (
    <tr>
      <td data-label="Member">
        {member.name ? `${member.name} · ` : ''}
        {member.email}
        {self && <span className="muted"> (you)</span>}
      </td>
      <td data-label="Role">
        {manage ? (
          <select
            aria-label={`Role of ${member.email}`}
            value={member.role}
            disabled={changeRole.isPending}
            onChange={(e) => changeRole.mutate({ userId: member.userId, role: e.target.value as Role })}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          <span className="badge">{member.role}</span>
        )}
      </td>
      <td data-label="Live keys">{member.liveKeys}</td>
      <td data-label="Joined">{date(member.joinedAt)}</td>
      <td className="actions">
        {manage &&
          (removing ? (
            <fieldset className="confirm">
              <legend className="sr-only">Remove {member.email}</legend>
              <label>
                Their keys:{' '}
                <select
                  aria-label={`Keys of ${member.email}`}
                  value={heir}
                  onChange={(e) => setHeir(e.target.value)}
                >
                  <option value="">revoke them</option>
                  {others.map((o) => (
                    <option key={o.userId} value={o.userId}>
                      transfer keys to {o.email}
                    </option>
                  ))}
                </select>
              </label>{' '}
              <button
                type="button"
                className="btn btn-danger btn-small"
                disabled={remove.isPending}
                onClick={() =>
                  remove.mutate({ userId: member.userId, ...(heir ? { transferKeysTo: heir } : {}) })
                }
              >
                {remove.isPending ? 'Removing…' : 'Yes, remove'}
              </button>
              <button type="button" className="btn btn-small" onClick={() => setRemoving(false)}>
                Cancel
              </button>
            </fieldset>
          ) : (
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Remove ${member.email}`}
              onClick={() => setRemoving(true)}
            >
              Remove
            </button>
          ))}
        {error && (
          <span className="field-error" role="alert">
            {messageOf(error)}
          </span>
        )}
      </td>
    </tr>
  );
}
