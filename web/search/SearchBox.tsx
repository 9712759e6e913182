import {
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
  type SyntheticEvent,
} from 'react';
import type { ExploreCard } from '../../common/api/explore';
import type { SearchAnswer, SearchPerson } from '../../common/api/search';
import { localizedPath } from '../../common/routes';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';
import { SearchIcon } from '../ui/icons';
import { recordSearch, searchFor, searchHistory, searchHref, trendingSearches } from './search-api';

/** Time after the last key before asking: a query per pause in typing, not per letter. */
const DEBOUNCE_MS = 200;

type Option =
  | { kind: 'all'; q: string }
  | { kind: 'person'; person: SearchPerson }
  | { kind: 'live'; live: ExploreCard }
  | { kind: 'past' | 'trending'; q: string };

/**
 * The long placeholder when the box has room for it, else the short one: beside a menu of eight
 * links in German or Arabic, a 1280-pixel header leaves the box too narrow for the long one,
 * which showed cut off mid-word.
 */
function useFittingPlaceholder(
  input: RefObject<HTMLInputElement | null>,
  long: string,
  short: string,
): string {
  const [fits, setFits] = useState(true);
  useEffect(() => {
    const el = input.current;
    const ctx =
      typeof ResizeObserver === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    if (!el || !ctx) return;
    const check = () => {
      const style = getComputedStyle(el);
      ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = el.clientWidth - parseFloat(style.paddingInlineStart) - parseFloat(style.paddingInlineEnd);
      setFits(ctx.measureText(long).width <= room);
    };
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, [input, long]);
  return fits ? long : short;
}

/** The suggestions for what is typed (null while none have come), or past and trending searches. */
function useSuggestions(text: string, open: boolean) {
  const { user } = useAuth();
  const [found, setFound] = useState<SearchAnswer | null>(null);
  const [past, setPast] = useState<string[]>([]);
  const [trending, setTrending] = useState<string[]>([]);
  const asked = useRef('');
  const q = text.trim();

  useEffect(() => {
    if (!q) return;
    asked.current = q;
    const timer = setTimeout(() => {
      searchFor(q, 'all').then(
        // Only the answer to what is typed now: an older, slower one is dropped.
        (a) => asked.current === q && setFound(a),
        () =>
          asked.current === q &&
          setFound({ q, people: { list: [], more: false }, lives: { list: [], more: false } }),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);

  // Past and trending searches, read when the box opens empty.
  useEffect(() => {
    if (!open || q) return;
    trendingSearches().then(setTrending, () => setTrending([]));
    if (user) searchHistory().then(setPast, () => setPast([]));
  }, [open, q, user]);

  const current = found && found.q === q ? found : null;
  // A visitor has no past searches (and one who signed out, none of the last person's).
  return { q, found: current, past: user ? past : [], trending };
}

/**
 * The header's search: a plain GET form that works before hydration; after it, suggestions as one
 * types (people and live rooms, with the way to all results), or past and trending searches when
 * empty. A combobox: arrows move through the suggestions, Enter opens one, Escape closes them.
 */
export function SearchBox() {
  const { t, locale } = useI18n();
  const router = useRouter();
  const id = useId();
  const action = localizedPath(locale, '/search');
  const current =
    router.payload.route.id === 'search'
      ? (new URLSearchParams(router.payload.route.url.split('?')[1]).get('q') ?? '')
      : '';
  const [text, setText] = useState(current);
  const [open, setOpen] = useState(false);
  const { q, found, past, trending } = useSuggestions(text, open);
  const input = useRef<HTMLInputElement>(null);
  const placeholder = useFittingPlaceholder(input, t('header.searchPlaceholder'), t('header.search'));
  // The box follows the page's query when the page changes (a link to other results).
  const [shownFor, setShownFor] = useState(current);
  if (shownFor !== current) {
    setShownFor(current);
    setText(current);
  }

  const options: Option[] = q
    ? [
        { kind: 'all', q },
        ...(found?.people.list.slice(0, 4).map((person) => ({ kind: 'person' as const, person })) ?? []),
        ...(found?.lives.list.slice(0, 3).map((live) => ({ kind: 'live' as const, live })) ?? []),
      ]
    : [
        ...past.slice(0, 5).map((p) => ({ kind: 'past' as const, q: p })),
        ...trending.slice(0, 5).map((p) => ({ kind: 'trending' as const, q: p })),
      ];
  const shown = open && options.length > 0;
  // The option the arrows are on, for this list only: a new list starts at the input (-1).
  const list = `${q}|${found ? 'found' : ''}|${options.length}`;
  const [pointer, setPointer] = useState({ list, at: -1 });
  const active = pointer.list === list ? pointer.at : -1;
  const setActive = (at: number) => setPointer({ list, at });

  const go = (o: Option) => {
    setOpen(false);
    if (o.kind === 'person') {
      recordSearch(q);
      router.navigate(localizedPath(locale, `/u/${o.person.short_id}`));
    } else if (o.kind === 'live') {
      recordSearch(q);
      router.navigate(localizedPath(locale, `/${o.live.kind === 'audio' ? 'audio' : 'v'}/${o.live.vid}`));
    } else {
      setText(o.q);
      recordSearch(o.q);
      router.navigate(searchHref(locale, o.q));
    }
  };
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const chosen = active >= 0 ? options[active] : undefined;
    if (chosen) return go(chosen);
    setOpen(false);
    if (q) recordSearch(q);
    router.navigate(q ? searchHref(locale, q) : action);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      const step = e.key === 'ArrowDown' ? 1 : -1;
      const n = options.length;
      // -1 is the input itself: the arrows go round through it.
      const next = active + step;
      setActive(n === 0 || next >= n ? -1 : next < -1 ? n - 1 : next);
    } else if (e.key === 'Escape') {
      setOpen(false);
      setActive(-1);
    }
  };

  const optionId = (i: number) => `${id}-o${i}`;
  const render = (o: Option, i: number) => (
    <div
      key={optionId(i)}
      id={optionId(i)}
      role="option"
      aria-selected={i === active}
      className={i === active ? 'suggest__option suggest__option--active' : 'suggest__option'}
      // Chosen on press, before the input's blur closes the list.
      onMouseDown={(e) => {
        e.preventDefault();
        go(o);
      }}
    >
      {o.kind === 'all' && (
        <>
          <SearchIcon />
          <span>{t('search.seeAll', { query: o.q })}</span>
        </>
      )}
      {o.kind === 'person' && (
        <>
          <Avatar face={o.person.face} name={o.person.nickname} size={28} />
          <bdi className="suggest__name">{o.person.nickname}</bdi>
          {o.person.live && <span className="live-badge">{t('live.badge')}</span>}
          <span className="muted small suggest__meta suggest__id">
            {t('search.idLabel', { id: o.person.short_id })}
          </span>
        </>
      )}
      {o.kind === 'live' && (
        <>
          <span className="live-badge">{t('live.badge')}</span>
          <bdi className="suggest__name">{o.live.title}</bdi>
          <bdi className="muted small suggest__meta">{o.live.host.nickname}</bdi>
        </>
      )}
      {(o.kind === 'past' || o.kind === 'trending') && (
        <>
          <span className="suggest__kind muted small">
            {t(o.kind === 'past' ? 'search.pastShort' : 'search.trendingShort')}
          </span>
          <bdi className="suggest__name">{o.q}</bdi>
        </>
      )}
    </div>
  );

  return (
    <form role="search" className="search" action={action} method="get" onSubmit={submit}>
      <label className="sr-only" htmlFor="site-search">
        {t('header.search')}
      </label>
      <input
        ref={input}
        id="site-search"
        className="search__input"
        type="search"
        name="q"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKey}
        placeholder={placeholder}
        maxLength={100}
        enterKeyHint="search"
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={`${id}-list`}
        aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
      />
      <button type="submit" className="search__button" aria-label={t('header.search')}>
        <SearchIcon />
      </button>
      <div
        id={`${id}-list`}
        role="listbox"
        aria-label={t('search.suggestions')}
        className="suggest"
        hidden={!shown}
      >
        {shown && options.map(render)}
      </div>
    </form>
  );
}
