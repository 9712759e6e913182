import type { RouteId } from '../../common/routes';
import type { PageModule } from '../lib/page';

/**
 * One chunk per page. In the browser each import becomes its own file, loaded on navigation or
 * preload; in the server bundle they are inlined.
 */
export const PAGES: Record<RouteId, () => Promise<PageModule>> = {
  home: () => import('../pages/Home'),
  static: () => import('../pages/StaticPage'),
  news: () => import('../pages/News'),
  newsArticle: () => import('../pages/NewsArticle'),
  search: () => import('../pages/Search'),
  explore: () => import('../pages/Explore'),
  leaderboard: () => import('../pages/Leaderboard'),
  feedback: () => import('../pages/Feedback'),
  videos: () => import('../pages/Videos'),
  shortVideo: () => import('../pages/Videos'),
  festival: () => import('../pages/Festival'),
  audio: () => import('../pages/Audio'),
  broadcast: () => import('../pages/Studio'),
  video: () => import('../pages/LiveVideo'),
  user: () => import('../pages/UserPage'),
  obs: () => import('../pages/Obs'),
  studio: () => import('../pages/Studio'),
  welcome: () => import('../pages/Welcome'),
  activate: () => import('../pages/Activate'),
  resetPassword: () => import('../pages/ResetPassword'),
  wallet: () => import('../pages/Wallet'),
  nft: () => import('../pages/NftWallet'),
  staff: () => import('../pages/Staff'),
  staffCashout: () => import('../pages/StaffCashout'),
  staffReports: () => import('../pages/StaffReports'),
  staffFeedback: () => import('../pages/StaffFeedback'),
  staffAnalytics: () => import('../pages/StaffAnalytics'),
  staffMembers: () => import('../pages/StaffMembers'),
  staffAudit: () => import('../pages/StaffAudit'),
  staffMonitor: () => import('../pages/StaffMonitor'),
  staffPeople: () => import('../pages/StaffPeople'),
  staffGifts: () => import('../pages/StaffGifts'),
  staffContent: () => import('../pages/StaffContent'),
  staffNews: () => import('../pages/StaffNews'),
  staffFestival: () => import('../pages/StaffFestival'),
  staffPages: () => import('../pages/StaffPages'),
  notFound: () => import('../pages/NotFound'),
};
