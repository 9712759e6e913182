// The content module's public face: Markdown documents from the content folder.
export { ContentStore, readNewsContent, renderMarkdown, type ContentDoc } from './content';
