/**
 * A name or other text from people, set apart from the sentence around it (U+2068 … U+2069): an
 * Arabic nickname in an English sentence, or a Latin address in an Arabic one, keeps its own
 * direction and does not reorder the words beside it.
 */
export const isolate = (text: string): string => `\u2068${text}\u2069`;
