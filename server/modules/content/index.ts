// The content module's public face: Markdown documents from the content folder, and the static
// pages as staff edit them.
export { ContentStore, readNewsContent, renderMarkdown, type ContentDoc, type PageEdit } from './content';
export { PageDesk } from './desk';
export { staffPageRoutes } from './routes';
