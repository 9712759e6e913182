import { useEffect, useRef, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';

/**
 * A modal dialog (the native <dialog>: focus kept inside, Escape closes) open while mounted.
 * A click on the backdrop closes it too; `label` names it for screen readers.
 */
export function Modal({
  label,
  onClose,
  className,
  children,
}: {
  label: string;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={className ? `dialog modal ${className}` : 'dialog modal'}
      aria-label={label}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        // The dialog element itself (not its content) is the backdrop.
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="modal__body">
        <button type="button" className="modal__close" aria-label={t('common.close')} onClick={onClose}>
          ×
        </button>
        {children}
      </div>
    </dialog>
  );
}
