import { useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Field } from '../ui/fields';
import { BusyButton, FormError, useSubmit } from '../ui/form';
import { filledNames, NamesFields, type Names } from './NamesFields';

/**
 * The console's catalogues (gifts and stickers on /staff/gifts) share their shape: a list of items
 * with a picture, a name and a state, each opening a form of names in every language, an order and
 * whether it is offered, with its files below once it exists.
 */

/** One item of a catalogue: its picture, name and state; its form below while open. */
export function CatalogueItem({
  icon,
  name,
  detail,
  open,
  onToggle,
  children,
}: {
  icon: string | null;
  name: string;
  detail: ReactNode;
  open: boolean;
  onToggle: () => void;
  /** The form, shown while open. */
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <li className="staff-gift">
      <div className="staff-gift__row">
        {icon ? (
          <img className="staff-gift__icon" src={icon} alt="" width={48} height={48} />
        ) : (
          <span className="staff-gift__icon staff-gift__icon--none" aria-hidden="true" />
        )}
        <div className="staff-gift__what">
          <strong>
            <bdi>{name}</bdi>
          </strong>
          <span className="muted small">{detail}</span>
        </div>
        <button
          type="button"
          className="btn btn--ghost btn--sm"
          aria-expanded={open}
          aria-label={t('console.gifts.editThis', { name })}
          onClick={onToggle}
        >
          {t('console.gifts.edit')}
        </button>
      </div>
      {open && children}
    </li>
  );
}

/** What every catalogue item has. */
export interface CatalogueBase {
  names: Names;
  sort: number;
  active: boolean;
}

/**
 * An item's form: names, order and offered, with `extra` fields beside the order (a gift's price)
 * and `files` below (or, for a new item, a word that they come once it is saved). `save` sends
 * the item with these; the form says what failed, or calls `onDone`.
 */
export function CatalogueForm({
  title,
  item,
  extra,
  files,
  save,
  onDone,
}: {
  title: string;
  item: { names: Record<string, string>; sort: number; active: boolean } | null;
  extra?: ReactNode;
  files: ReactNode;
  save: (base: CatalogueBase) => Promise<void>;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [names, setNames] = useState<Names>((item?.names as Names | undefined) ?? {});
  const [sort, setSort] = useState(String(item?.sort ?? 100));
  const [active, setActive] = useState(item?.active ?? true);
  const { busy, error, onSubmit } = useSubmit();
  const submit = onSubmit(async () => {
    const base = { names: filledNames(names), sort: Number(sort), active };
    await save(base);
    toast(t('console.gifts.saved', { name: base.names.en ?? '' }));
    onDone();
  });
  return (
    <form className="staff-gift__form" onSubmit={submit} aria-label={title}>
      <NamesFields legend={t('console.gifts.names')} names={names} onChange={setNames} />
      <div className="staff-gift__numbers">
        {extra}
        <Field
          label={t('console.gifts.order')}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          required
          value={sort}
          onChange={(e) => setSort(e.target.value)}
        />
        <label className="check">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />{' '}
          {t('console.gifts.offer')}
        </label>
      </div>
      {files}
      <FormError message={error} />
      <div className="staff-gift__actions">
        <BusyButton busy={busy} disabled={busy} className="btn btn--primary">
          {t('console.gifts.save')}
        </BusyButton>
        <button type="button" className="btn btn--ghost" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}

/**
 * One of an item's files: what it is now (`preview`), replaced by choosing a file, sent at once
 * by `upload` (which says it is saved); a failure is told.
 */
export function FilePick({
  label,
  preview,
  choose,
  accept,
  upload,
}: {
  label: string;
  preview: ReactNode;
  choose: string;
  accept: string;
  upload: (file: File) => Promise<void>;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [busy, setBusy] = useState(false);
  const send = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    try {
      await upload(file);
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="field">
      <span className="staff-gift__label">{label}</span>
      {preview}
      <label className="btn btn--ghost btn--sm staff-gift__pick" aria-busy={busy}>
        {choose}
        <input
          type="file"
          className="sr-only"
          accept={accept}
          disabled={busy}
          onChange={(e) => void send(e.target.files?.[0])}
        />
      </label>
    </div>
  );
}
