// The console's own calls (server/modules/staff; contract in common/api/staff.ts).
import type { Answer } from '../../common/api/envelope';
import type { mfaSetupAnswer, staffMembersAnswer, StaffMe } from '../../common/api/staff';
import type { StaffRole } from '../../common/staff';
import { api } from '../lib/api';

export type StaffMembers = Answer<typeof staffMembersAnswer>;

export const staffApi = {
  me: () => api<StaffMe>('GET', '/api/v1/staff/me'),
  setup: () => api<Answer<typeof mfaSetupAnswer>>('POST', '/api/v1/staff/mfa/setup', {}),
  verify: (code: string) => api<{ until: string }>('POST', '/api/v1/staff/mfa/verify', { code }),
  signOut: () => api<unknown>('POST', '/api/v1/staff/sign-out', {}),
  invite: (email: string, role: StaffRole) =>
    api<{ uid: number | null }>('POST', '/api/v1/staff/members', { email, role }),
  setRole: (uid: number, role: StaffRole) => api<unknown>('PUT', `/api/v1/staff/members/${uid}`, { role }),
  remove: (uid: number) => api<unknown>('DELETE', `/api/v1/staff/members/${uid}`),
  resetMfa: (uid: number) => api<unknown>('DELETE', `/api/v1/staff/members/${uid}/mfa`),
  uninvite: (email: string) =>
    api<unknown>('DELETE', `/api/v1/staff/invitations/${encodeURIComponent(email)}`),
};
