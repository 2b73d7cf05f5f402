export { assertCanReadAudit, assertKeyCanReadAudit } from './audit-access';
export {
  acceptInvitation,
  createInvitation,
  listInvitations,
  previewInvitation,
  revokeInvitation,
  signUpByInvitation,
} from './invitations';
export { changeRole, leaveOrganisation, listMembers, removeMember } from './members';
export { listOrganisations, organisationName, switchOrganisation } from './organisations';
export { type Action, authorize, authorizeKeyChange, can } from './permissions';
