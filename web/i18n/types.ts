import type en from './messages/en.json';

/** Every key of the English catalogue, which is the reference for the others. */
export type MessageKey = keyof typeof en;
export type Messages = Record<string, string>;
