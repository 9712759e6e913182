// The props every page component receives: its data and the payload it came in.
import type { ComponentType } from 'react';
import type { PagePayload } from '../app/state';

export interface PageProps<D = unknown> {
  data: D;
  payload: PagePayload;
}

export type PageModule = { default: ComponentType<PageProps> };
