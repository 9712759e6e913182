import type { RouteId } from '../../common/routes';

/**
 * The source file of each route's page, matching the imports in pages.ts; the server uses it to
 * find the chunk to preload (pages.test.ts keeps the two in step).
 */
export const PAGE_SOURCES: Record<RouteId, string> = {
  home: 'web/pages/Home.tsx',
  static: 'web/pages/StaticPage.tsx',
  news: 'web/pages/News.tsx',
  newsArticle: 'web/pages/NewsArticle.tsx',
  search: 'web/pages/Search.tsx',
  explore: 'web/pages/Explore.tsx',
  leaderboard: 'web/pages/Leaderboard.tsx',
  feedback: 'web/pages/Feedback.tsx',
  videos: 'web/pages/Videos.tsx',
  shortVideo: 'web/pages/Videos.tsx',
  festival: 'web/pages/Festival.tsx',
  audio: 'web/pages/Audio.tsx',
  broadcast: 'web/pages/Studio.tsx',
  video: 'web/pages/LiveVideo.tsx',
  user: 'web/pages/UserPage.tsx',
  obs: 'web/pages/Obs.tsx',
  studio: 'web/pages/Studio.tsx',
  welcome: 'web/pages/Welcome.tsx',
  activate: 'web/pages/Activate.tsx',
  resetPassword: 'web/pages/ResetPassword.tsx',
  wallet: 'web/pages/Wallet.tsx',
  nft: 'web/pages/NftWallet.tsx',
  staff: 'web/pages/Staff.tsx',
  staffCashout: 'web/pages/StaffCashout.tsx',
  staffReports: 'web/pages/StaffReports.tsx',
  staffFeedback: 'web/pages/StaffFeedback.tsx',
  staffAnalytics: 'web/pages/StaffAnalytics.tsx',
  staffMembers: 'web/pages/StaffMembers.tsx',
  staffAudit: 'web/pages/StaffAudit.tsx',
  staffMonitor: 'web/pages/StaffMonitor.tsx',
  staffPeople: 'web/pages/StaffPeople.tsx',
  staffGifts: 'web/pages/StaffGifts.tsx',
  staffContent: 'web/pages/StaffContent.tsx',
  staffNews: 'web/pages/StaffNews.tsx',
  staffFestival: 'web/pages/StaffFestival.tsx',
  notFound: 'web/pages/NotFound.tsx',
};
