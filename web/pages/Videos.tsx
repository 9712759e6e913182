import type { PageProps } from '../lib/page';
import { VideoFeed } from '../videos/VideoFeed';
import type { VideosData } from './data';

/**
 * /videos and /videos/{id} (issue 23 item 1): short videos, one screen each, played as the reader
 * swipes; a video's own page is the same feed starting at that video.
 */
export default function Videos({ data }: PageProps) {
  const d = data as VideosData;
  // Another list, or another video to start from (a link to it), starts the feed afresh.
  return <VideoFeed key={`${d.tab}|${d.start?.id ?? ''}`} data={d} />;
}
