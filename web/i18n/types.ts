import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type en from './messages/en.json';

/** Every key of the English catalogue, which is the reference for the others. */
export type MessageKey = keyof typeof en;
/**
 * A catalogue: ICU message text (the JSON files, used on the server) or, in the browser bundle,
 * the same messages already parsed into ASTs by the build (scripts/build.mjs).
 */
export type Messages = Record<string, string | MessageFormatElement[]>;
/** A catalogue as written: ICU message text by key. */
export type MessageTexts = Record<string, string>;
