import type { ReactNode } from 'react';
import type { FeedbackCategory } from '../../common/feedback';
import { useRouter } from '../lib/router';
import { Link } from '../ui/Link';
import { feedbackPath } from './links';

/** A link to the feedback form that sends the page it is on along with the message. */
export function FeedbackLink({
  category,
  className,
  children,
}: {
  category?: FeedbackCategory;
  className?: string;
  children: ReactNode;
}) {
  const { payload } = useRouter();
  // On the form itself the link keeps the page the form was opened from.
  const from = payload.route.id === 'feedback' ? '/' : payload.route.url;
  return (
    <Link to={feedbackPath(from, category)} className={className}>
      {children}
    </Link>
  );
}
