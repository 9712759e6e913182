import { useState, type ReactNode } from 'react';
import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';
import { Chat, type Mention } from './Chat';
import { FollowProvider } from './follow-store';
import { Modal } from '../ui/Modal';
import { PersonalCard } from './PersonalCard';
import { Audience, TopFans } from './RoomPeople';

type Tab = 'chat' | 'audience' | 'fans' | 'extra';
/**
 * On phones the tabs give way to chat over the video; the others open as bottom sheets ('extra':
 * the page's own tab).
 */
export type RoomSheet = 'audience' | 'fans' | 'extra';

type RoomPanelProps = Parameters<typeof Panel>[0];

/**
 * The live room's side panel: chat, the online audience and top fans as tabs (plus one more
 * the page brings, like the studio's gifts). A name anywhere opens that person's card; cards
 * share follow state with the page's other follow buttons (or, alone, among themselves).
 */
export function RoomPanel(props: RoomPanelProps) {
  return (
    <FollowProvider>
      <Panel {...props} />
    </FollowProvider>
  );
}

function Panel({
  vid,
  hostUid,
  viewers,
  onViewers,
  onBlocked,
  extra,
  sheet = null,
  onSheet,
  actions,
  cardActions,
}: {
  vid: string;
  hostUid: number;
  viewers: number;
  onViewers: (n: number) => void;
  onBlocked?: () => void;
  extra?: { label: string; content: ReactNode };
  /** The sheet open over the room (phones), and how to close it. */
  sheet?: RoomSheet | null;
  onSheet?: (sheet: RoomSheet | null) => void;
  /** Buttons at the end of the chat's message bar. */
  actions?: ReactNode;
  /** The page's own actions on a person's card (an audio room's host invites them to speak). */
  cardActions?: (person: { uid: number; nickname: string }, close: () => void) => ReactNode;
}) {
  const { t, locale } = useI18n();
  const [tab, setTab] = useState<Tab>('chat');
  const [card, setCard] = useState<number | null>(null);
  const [mention, setMention] = useState<Mention | null>(null);
  const tabs: [Tab, ReactNode][] = [
    ['chat', t('room.tabChat')],
    [
      'audience',
      <>
        {t('room.tabAudience')} <span className="tabs__count">{formatCount(viewers, locale)}</span>
      </>,
    ],
    ['fans', t('room.tabFans')],
  ];
  if (extra) tabs.push(['extra', extra.label]);
  const sheetTitle =
    sheet === 'extra' ? (extra?.label ?? '') : t(sheet === 'fans' ? 'room.tabFans' : 'room.tabAudience');
  return (
    <section className="room-panel" aria-label={t('room.title')}>
      <div className="tabs" role="tablist">
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`room-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`room-panel-${id}`}
            className="tabs__tab"
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      {/* The chat stays mounted under the other tabs: it keeps its place in the room. */}
      <div role="tabpanel" id="room-panel-chat" aria-labelledby="room-tab-chat" hidden={tab !== 'chat'}>
        <Chat
          vid={vid}
          hostUid={hostUid}
          onPick={setCard}
          mention={mention}
          onViewers={onViewers}
          actions={actions}
          {...(onBlocked ? { onBlocked } : {})}
        />
      </div>
      {tab !== 'chat' && (
        <div
          role="tabpanel"
          id={`room-panel-${tab}`}
          aria-labelledby={`room-tab-${tab}`}
          className="room-panel__other"
        >
          {tab === 'audience' && <Audience vid={vid} viewers={viewers} onPick={setCard} />}
          {tab === 'fans' && <TopFans vid={vid} onPick={setCard} />}
          {tab === 'extra' && extra?.content}
        </div>
      )}
      {sheet !== null && (
        <Modal label={sheetTitle} onClose={() => onSheet?.(null)} className="sheet">
          <h2 className="sheet__title">{sheetTitle}</h2>
          {sheet === 'audience' && <Audience vid={vid} viewers={viewers} onPick={setCard} />}
          {sheet === 'fans' && <TopFans vid={vid} onPick={setCard} />}
          {sheet === 'extra' && extra?.content}
        </Modal>
      )}
      {card !== null && (
        <PersonalCard
          vid={vid}
          uid={card}
          onClose={() => setCard(null)}
          {...(cardActions ? { actions: cardActions } : {})}
          onMention={(p) => {
            setMention({ uid: p.uid, name: p.nickname, at: Date.now() });
            setTab('chat');
          }}
        />
      )}
    </section>
  );
}

/** The room's top-bar chip with the audience's size (phones); it opens the audience sheet. */
export function AudienceChip({ viewers, onOpen }: { viewers: number; onOpen: () => void }) {
  const { t, locale } = useI18n();
  const count = formatCount(viewers, locale);
  return (
    <button
      type="button"
      className="live-room-bar__chip"
      onClick={onOpen}
      aria-label={`${t('room.tabAudience')}: ${count}`}
    >
      {count}
    </button>
  );
}
