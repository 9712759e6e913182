// The staff console's own endpoints (issue 24, server/modules/staff): who the reader is as staff,
// their second factor, staff accounts, and the audit log.
import { z } from 'zod';
import { PERMISSIONS, STAFF_ROLES } from '../staff';
import { type Answer, errorResponses } from './envelope';

export const staffErrors = errorResponses(400, 401, 403, 404, 409, 429);

const role = z.enum(STAFF_ROLES);
const permission = z.enum(
  Object.keys(PERMISSIONS) as [keyof typeof PERMISSIONS, ...(keyof typeof PERMISSIONS)[]],
);

/**
 * GET /api/v1/staff/me: the reader's role and permissions, and where their second factor stands:
 * 'enrol' (none yet: POST …/mfa/setup, then …/mfa/verify), 'verify' (a code is asked for this
 * sign-in) or 'ok' (until `until`).
 */
export const staffMeAnswer = z.object({
  uid: z.number(),
  role,
  permissions: z.array(permission),
  mfa: z.enum(['enrol', 'verify', 'ok']),
  until: z.string().nullable(),
});
export type StaffMe = Answer<typeof staffMeAnswer>;

/** POST /api/v1/staff/mfa/setup: a secret to enrol, as an address and a QR code of it. */
export const mfaSetupAnswer = z.object({
  secret: z.string(),
  uri: z.string(),
  /** A data: URL of an SVG QR code of `uri`. */
  qr: z.string(),
});

/** POST /api/v1/staff/mfa/verify. */
export const mfaVerifyBody = z.object({ code: z.string().regex(/^\d{6}$/) });
export const mfaVerifyAnswer = z.object({ until: z.string() });

/** A member of staff, as the accounts page lists them. */
export const staffMemberSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  email: z.string().nullable(),
  role,
  /** Their second factor is set up. */
  mfa: z.boolean(),
  since: z.string(),
  /** Named by STAFF_EMAILS: an admin while the configuration says so. */
  configured: z.boolean(),
});
export type StaffMember = Answer<typeof staffMemberSchema>;

/** GET /api/v1/staff/members. */
export const staffMembersAnswer = z.object({
  list: z.array(staffMemberSchema),
  invitations: z.array(z.object({ email: z.string(), role, since: z.string() })),
});

/** A reason staff give for what they did: kept in the audit log. */
export const staffNote = z.string().trim().min(1).max(1000);

/** POST /api/v1/staff/members: invite by e-mail (a member at once when the address has an account). */
export const inviteStaffBody = z.object({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
  role,
});
export const inviteStaffAnswer = z.object({ uid: z.number().nullable() });

export const staffMemberParams = z.object({ uid: z.coerce.number().int().positive() });
/** PUT /api/v1/staff/members/{uid}. */
export const staffRoleBody = z.object({ role });
export const staffInvitationParams = z.object({ email: z.string().toLowerCase().pipe(z.email()) });

/** GET /api/v1/staff/audit (and …/audit.csv). */
export const auditQuery = z.object({
  /** Words of a target (e.g. `user:123`), an actor's name or a note. */
  q: z.string().trim().max(200).optional(),
  actor: z.coerce.number().int().positive().optional(),
  action: z
    .string()
    .regex(/^[a-z_.]{1,60}$/)
    .optional(),
  /** Older than this entry (the last one of the page before). */
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  actor: z.object({ uid: z.number(), name: z.string(), role }),
  action: z.string(),
  target: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  note: z.string().nullable(),
});
export type AuditEntry = Answer<typeof auditEntrySchema>;
export const auditAnswer = z.object({ list: z.array(auditEntrySchema), next: z.number().nullable() });
