// The profile's schema is part of the API contract: common/api/users.ts.
export { publicProfileSchema } from '../../../common/api/users';
