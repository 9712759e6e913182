// Staff roles and what each may do (issue 24): the one permission matrix, read by the server's
// guard and by the console to show each member only their pages. Plain values: the browser
// imports them without zod.

export const STAFF_ROLES = ['admin', 'moderator', 'finance', 'content'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * Each permission and the roles that hold it. Admins hold every one; the others what their work
 * needs: moderators keep people and rooms safe, finance reviews money, content edits what the
 * site shows.
 */
export const PERMISSIONS = {
  /** Staff accounts: invite, change roles, remove. */
  'staff.manage': ['admin'],
  /** The audit log: read, search, export. */
  'audit.read': ['admin'],
  /** Reports, warnings, suspensions, bans, live monitoring, chat moderation. */
  'safety.act': ['admin', 'moderator'],
  /** Payees, cash-outs, payment shortfalls, refunds. */
  'money.review': ['admin', 'finance'],
  /** Gifts, stickers, words, curation, news, pages, the festival programme, wonderful videos. */
  'content.edit': ['admin', 'content'],
  /** The feedback inbox. */
  'feedback.read': ['admin', 'moderator', 'content'],
  /** The analytics roll-ups. */
  'analytics.read': ['admin', 'finance', 'content'],
} as const satisfies Record<string, readonly StaffRole[]>;
export type Permission = keyof typeof PERMISSIONS;

/** Whether `role` (null: not staff) holds `permission`. */
export function can(role: StaffRole | null, permission: Permission): boolean {
  return role !== null && (PERMISSIONS[permission] as readonly StaffRole[]).includes(role);
}

/** Every permission `role` holds. */
export function permissionsOf(role: StaffRole | null): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((p) => can(role, p));
}

/**
 * How long a staff sign-in lasts: the second factor is asked again after it, however long the
 * session itself lasts (a member's powers must not ride on a month-old cookie).
 */
export const STAFF_SESSION_MS = 8 * 3600_000;
