import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  auditAnswer,
  auditQuery,
  inviteStaffAnswer,
  inviteStaffBody,
  mfaSetupAnswer,
  mfaVerifyAnswer,
  mfaVerifyBody,
  staffErrors as errors,
  staffInvitationParams,
  staffMeAnswer,
  staffMemberParams,
  staffMembersAnswer,
  staffRoleBody,
} from '../../../common/api/staff';
import { z } from 'zod';
import type { StaffService } from './service';

const tags = ['staff'];
const done = { 200: okSchema(z.object({})), ...errors };

/** The console's own endpoints: the reader as staff, their second factor, accounts, the audit log. */
export function staffRoutes(deps: { staff: StaffService }): FastifyPluginAsyncZod {
  const { staff } = deps;
  return async (app) => {
    app.get(
      '/api/v1/staff/me',
      {
        schema: {
          tags,
          summary: 'The reader as staff: role, permissions, and whether a second-factor code is asked',
          response: { 200: okSchema(staffMeAnswer), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await staff.me(req) };
      },
    );

    app.post(
      '/api/v1/staff/mfa/setup',
      {
        schema: {
          tags,
          summary: 'A new authenticator secret (a member without one): its otpauth address and QR code',
          response: { 200: okSchema(mfaSetupAnswer), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await staff.mfaSetup(req) };
      },
    );

    app.post(
      '/api/v1/staff/mfa/verify',
      {
        schema: {
          tags,
          summary: 'A code from the authenticator: signs this session in as staff for 8 hours',
          body: mfaVerifyBody,
          response: { 200: okSchema(mfaVerifyAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await staff.mfaVerify(req, req.body.code) }),
    );

    app.post(
      '/api/v1/staff/sign-out',
      { schema: { tags, summary: 'Ends this session’s staff sign-in (not the account’s)', response: done } },
      async (req) => {
        await staff.signOut(req);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/staff/members',
      {
        schema: {
          tags,
          summary: 'Staff accounts and open invitations (admins)',
          response: { 200: okSchema(staffMembersAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'staff.manage');
        return { status: 200 as const, data: await staff.members() };
      },
    );

    app.post(
      '/api/v1/staff/members',
      {
        schema: {
          tags,
          summary: 'Invite someone to the staff by e-mail, with a role (admins)',
          body: inviteStaffBody,
          response: { 200: okSchema(inviteStaffAnswer), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'staff.manage');
        return {
          status: 200 as const,
          data: { uid: await staff.invite(actor, req.body.email, req.body.role) },
        };
      },
    );

    app.put(
      '/api/v1/staff/members/:uid',
      {
        schema: {
          tags,
          summary: 'Change a member’s role (admins; the last admin stays one)',
          params: staffMemberParams,
          body: staffRoleBody,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'staff.manage');
        await staff.setRole(actor, req.params.uid, req.body.role);
        return { status: 200 as const, data: {} };
      },
    );

    app.delete(
      '/api/v1/staff/members/:uid',
      {
        schema: {
          tags,
          summary: 'Remove someone from the staff (admins)',
          params: staffMemberParams,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'staff.manage');
        await staff.remove(actor, req.params.uid);
        return { status: 200 as const, data: {} };
      },
    );

    app.delete(
      '/api/v1/staff/members/:uid/mfa',
      {
        schema: {
          tags,
          summary: 'Reset a member’s authenticator (a lost phone): they set up a new one (admins)',
          params: staffMemberParams,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'staff.manage');
        await staff.resetMfa(actor, req.params.uid);
        return { status: 200 as const, data: {} };
      },
    );

    app.delete(
      '/api/v1/staff/invitations/:email',
      {
        schema: {
          tags,
          summary: 'Withdraw an invitation (admins)',
          params: staffInvitationParams,
          response: done,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'staff.manage');
        await staff.dropInvitation(actor, req.params.email);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/staff/audit',
      {
        schema: {
          tags,
          summary: 'The audit log of staff actions, newest first (admins)',
          querystring: auditQuery,
          response: { 200: okSchema(auditAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'audit.read');
        const q = req.query;
        const data = await staff.auditLog({
          q: q.q || null,
          actor: q.actor ?? null,
          action: q.action ?? null,
          before: q.before ?? null,
          limit: q.limit,
        });
        return { status: 200 as const, data };
      },
    );

    app.get(
      '/api/v1/staff/audit.csv',
      {
        schema: {
          tags,
          summary: 'The audit log matching the filter as CSV (admins)',
          querystring: auditQuery.omit({ before: true, limit: true }),
        },
      },
      async (req, reply) => {
        await staff.require(req, 'audit.read');
        const q = req.query;
        const csv = await staff.auditCsv({
          q: q.q || null,
          actor: q.actor ?? null,
          action: q.action ?? null,
        });
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="staff-audit.csv"')
          .header('cache-control', 'no-store')
          .send(csv);
      },
    );
  };
}
