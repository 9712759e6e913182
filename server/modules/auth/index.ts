// The auth module's public face: sign-in and sessions, the request's signed-in person, and the
// few helpers other modules share (tokens, phone numbers, SMS codes, the request's metadata).
export { CSRF_COOKIE, registerAuthContext, requireAuth, SESSION_COOKIE, type RequestAuth } from './context';
export { hashToken, loadTransportKey, newToken, safeEqual } from './crypto';
export { metaReader, type MetaReader } from './meta';
export { phoneFromParts } from './phone';
export { phoneRoutes } from './phone-routes';
export { PhoneAuthService } from './phone-service';
export { FingerprintRiskProvider, type RiskProvider } from './risk';
export { authRoutes } from './routes';
export { authErrors as errors, userInfoSchema } from '../../../common/api/auth';
export { userInfo } from './schemas';
export { AuthService, type RequestMeta, type SessionsEnded } from './service';
export { SessionCache, type LiveSession } from './session-cache';
export { SignupLimits } from './signup-limits';
export { SmsCodes } from './sms-codes';
export { GoogleSignIn } from './third-party';
export { thirdPartyRoutes } from './third-routes';
export { signupCounts } from './stats';
