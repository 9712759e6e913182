import { useState, type SyntheticEvent } from 'react';
import type { ProgrammeBody, ProgrammeCard, ProgrammeInfo } from '../../common/api/festival';
import { PROGRAMME_MAX_SLOTS, PROGRAMME_NAME_MAX_CHARS, SLOT_TITLE_MAX_CHARS } from '../../common/festival';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { Console } from '../staff/Console';
import { DeskList, ItemRow } from '../staff/ItemRow';
import { fromLocalInput, toLocalInput } from '../staff/local-time';
import { filledNames, NamesFields, type Names } from '../staff/NamesFields';
import { formatDateTime } from '../wallet/format';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/festival: the festival programmes not over yet, and one written or edited: its name in
 * every language and its slots (a host by short id, a title, a start and an end).
 */
export default function StaffFestival() {
  return (
    <Console page="festival" needs="content.edit">
      {() => <Programmes />}
    </Console>
  );
}

function Programmes() {
  const { t, locale } = useI18n();
  const list = useApiData<{ list: ProgrammeCard[] }>(`/api/v1/programmes?locale=${locale}`);
  const [open, setOpen] = useState<number | 'new' | null>(null);
  if (open !== null)
    return (
      <Editor
        id={open}
        onDone={(saved) => {
          setOpen(null);
          if (saved) list.reload();
        }}
      />
    );
  return (
    <DeskList
      title={t('console.nav.festival')}
      add={{ label: t('console.festival.add'), onClick: () => setOpen('new') }}
      help={t('console.festival.help')}
      list={list}
      empty={t('console.festival.empty')}
    >
      {(p) => (
        <ItemRow
          key={p.id}
          title={p.name}
          meta={
            <>
              {formatDateTime(p.starts_at, locale)} – {formatDateTime(p.ends_at, locale)}
              {p.on_now && <> · {t('console.festival.onNow')}</>}
            </>
          }
          view={`/${locale}/festival/${p.id}`}
          editLabel={t('console.festival.editThis', { name: p.name })}
          onEdit={() => setOpen(p.id)}
        />
      )}
    </DeskList>
  );
}

/** A slot as the form holds it: times as datetime-local values. */
interface SlotDraft {
  key: number;
  host: string;
  title: string;
  starts: string;
  ends: string;
}

let nextKey = 1;
const hourFromNow = (hours: number) => toLocalInput(new Date(Date.now() + hours * 3_600_000).toISOString());

function Editor({ id, onDone }: { id: number | 'new'; onDone: (saved: boolean) => void }) {
  const { data, error, reload } = useApiData<ProgrammeInfo>(
    id === 'new' ? null : `/api/v1/programmes/${id}?tz=UTC`,
  );
  if (id !== 'new' && error !== null) return <LoadError error={error} onRetry={reload} />;
  if (id !== 'new' && !data) return <Loading />;
  return <ProgrammeForm programme={id === 'new' ? null : data} onDone={onDone} />;
}

function ProgrammeForm({
  programme,
  onDone,
}: {
  programme: ProgrammeInfo | null;
  onDone: (saved: boolean) => void;
}) {
  const { t } = useI18n();
  const { toast, confirm } = useFeedback();
  const [names, setNames] = useState<Names>((programme?.names as Names | undefined) ?? {});
  const [slots, setSlots] = useState<SlotDraft[]>(() =>
    programme
      ? programme.list.map((s) => ({
          key: nextKey++,
          host: s.host.short_id,
          title: s.title,
          starts: toLocalInput(s.starts_at),
          ends: toLocalInput(s.ends_at),
        }))
      : [{ key: nextKey++, host: '', title: '', starts: hourFromNow(24), ends: hourFromNow(25) }],
  );
  const [busy, setBusy] = useState<'save' | 'delete' | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const change = (key: number, patch: Partial<SlotDraft>) =>
    setSlots(slots.map((s) => (s.key === key ? { ...s, ...patch } : s)));
  const addSlot = () => {
    const last = slots.at(-1);
    // The next slot starts where the last one ends, for an hour.
    const starts = last?.ends ?? hourFromNow(24);
    const ends = toLocalInput(new Date(Date.parse(fromLocalInput(starts)) + 3_600_000).toISOString());
    setSlots([...slots, { key: nextKey++, host: '', title: '', starts, ends }]);
  };
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy('save');
    setFailure(null);
    const body: ProgrammeBody = {
      names: filledNames(names),
      slots: slots.map((s) => ({
        host: s.host.trim(),
        title: s.title.trim(),
        starts_at: fromLocalInput(s.starts),
        ends_at: fromLocalInput(s.ends),
      })),
    };
    try {
      if (programme) await api('PUT', `/api/v1/staff/programmes/${programme.id}`, body);
      else await api('POST', '/api/v1/staff/programmes', body);
      toast(t('console.festival.saved'));
      onDone(true);
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(null);
    }
  };
  const remove = async () => {
    if (!programme || !(await confirm(t('console.festival.deleteConfirm', { name: programme.name })))) return;
    setBusy('delete');
    try {
      await api('DELETE', `/api/v1/staff/programmes/${programme.id}`);
      toast(t('console.festival.deleted'));
      onDone(true);
    } catch (err) {
      setFailure(errorMessage(t, err));
      setBusy(null);
    }
  };
  const title = programme
    ? t('console.festival.editThis', { name: programme.name })
    : t('console.festival.add');
  return (
    <form className="staff-gift__form staff-news" onSubmit={(e) => void submit(e)} aria-label={title}>
      <button type="button" className="btn btn--ghost btn--sm staff-news__back" onClick={() => onDone(false)}>
        {t('console.festival.back')}
      </button>
      <h1>{title}</h1>
      <NamesFields
        legend={t('console.festival.names')}
        names={names}
        onChange={setNames}
        maxLength={PROGRAMME_NAME_MAX_CHARS}
      />
      <fieldset className="staff-news__text">
        <legend>{t('console.festival.slots')}</legend>
        <p className="muted small">{t('console.festival.slotsHelp')}</p>
        <ol className="staff-festival__slots">
          {slots.map((s, i) => (
            <li
              key={s.key}
              className="staff-festival__slot"
              aria-label={t('console.festival.slot', { n: i + 1 })}
            >
              <Field
                label={t('console.festival.host')}
                dir="ltr"
                inputMode="numeric"
                pattern="[0-9]{4,20}"
                required
                value={s.host}
                onChange={(e) => change(s.key, { host: e.target.value })}
              />
              <Field
                label={t('console.festival.slotTitle')}
                dir="auto"
                maxLength={SLOT_TITLE_MAX_CHARS}
                value={s.title}
                onChange={(e) => change(s.key, { title: e.target.value })}
              />
              <Field
                label={t('console.festival.starts')}
                type="datetime-local"
                required
                value={s.starts}
                onChange={(e) => change(s.key, { starts: e.target.value })}
              />
              <Field
                label={t('console.festival.ends')}
                type="datetime-local"
                required
                value={s.ends}
                onChange={(e) => change(s.key, { ends: e.target.value })}
              />
              {slots.length > 1 && (
                <button
                  type="button"
                  className="btn btn--ghost btn--sm"
                  onClick={() => setSlots(slots.filter((x) => x.key !== s.key))}
                >
                  {t('console.festival.removeSlot')}
                </button>
              )}
            </li>
          ))}
        </ol>
        {slots.length < PROGRAMME_MAX_SLOTS && (
          <button type="button" className="btn btn--ghost btn--sm staff-news__back" onClick={addSlot}>
            {t('console.festival.addSlot')}
          </button>
        )}
      </fieldset>
      <FormError message={failure} />
      <div className="staff-gift__actions">
        <BusyButton busy={busy === 'save'} disabled={busy !== null} className="btn btn--primary">
          {t('console.festival.save')}
        </BusyButton>
        <button type="button" className="btn btn--ghost" onClick={() => onDone(false)}>
          {t('common.cancel')}
        </button>
        {programme && (
          <button
            type="button"
            className="btn btn--danger"
            disabled={busy !== null}
            onClick={() => void remove()}
          >
            {t('console.festival.delete')}
          </button>
        )}
      </div>
    </form>
  );
}
