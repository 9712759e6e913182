import type { ReactNode } from 'react';
import { Link } from '../ui/Link';

interface Props {
  vid: string;
  /** Where the card leads: the broadcast's live page unless told (an audio room's join page). */
  to?: string;
  title: string;
  cover: string | null;
  /** Whose broadcast: the cover falls back to their initial. */
  hostName: string;
  /** Over the cover: the LIVE or replay badge, the viewer count. */
  overlay: ReactNode;
  /** Under the title: the host, or when it was. */
  subtitle: ReactNode;
}

/** A broadcast in a grid (who is live now, a broadcaster's replays): cover, title, subtitle. */
export function BroadcastCard({ vid, to, title, cover, hostName, overlay, subtitle }: Props) {
  return (
    <Link to={to ?? `/v/${vid}`} className="live-card">
      <span className="live-card__cover" aria-hidden="true">
        {cover ? (
          <img src={cover} alt="" loading="lazy" />
        ) : (
          <span className="live-card__initial">{hostName.slice(0, 1)}</span>
        )}
        {overlay}
      </span>
      {/* dir="auto": the title's own direction, so a long one is cut at its end (a Latin title
          on an Arabic page loses its last words, not its first). */}
      <span className="live-card__title" dir="auto">
        {title}
      </span>
      {subtitle && <span className="live-card__host muted">{subtitle}</span>}
    </Link>
  );
}
