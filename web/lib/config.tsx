import { createContext, useContext } from 'react';
import type { PublicConfig } from '../../common/config';

export interface ClientConfig extends PublicConfig {
  buildId: string;
}

export const ConfigContext = createContext<ClientConfig | null>(null);

export function useConfig(): ClientConfig {
  const c = useContext(ConfigContext);
  if (!c) throw new Error('useConfig outside ConfigContext');
  return c;
}
