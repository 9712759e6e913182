// What the server tells every page about its configuration (the page state's `config`).

/** The deployments the server knows (APP_ENV). */
export const APP_ENVS = ['development', 'test', 'gray', 'online'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

/** Settings the browser may see. Nothing else from the server's Config reaches a page. */
export interface PublicConfig {
  siteName: string;
  env: AppEnv;
  versionPollSeconds: number;
  followInviteSeconds: number;
  /** Third-party sign-in offered under the divider (spec §3: Google is the only one). */
  thirdParty: 'google'[];
  links: {
    guildForm: string;
    facebook: string;
    twitter: string;
    youtube: string;
    instagram: string;
    appStore: string;
    googlePlay: string;
    samsungStore: string;
    apk: string | null;
  };
}
