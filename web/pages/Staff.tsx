import { useI18n } from '../i18n/i18n';
import { Link } from '../ui/Link';
import { Console, sectionsOf } from '../staff/Console';

/** /staff: the console's overview, the sections the member's role opens, each said in a line. */
export default function Staff() {
  const { t } = useI18n();
  return (
    <Console page="overview" needs={null}>
      {(me) => (
        <>
          <header className="page-head">
            <h1>{t('console.title')}</h1>
            <p className="muted">{t('console.overview.intro', { role: t(`console.role.${me.role}`) })}</p>
          </header>
          <ul className="staff-cards">
            {sectionsOf(me).map(
              (s) =>
                s.page !== 'overview' && (
                  <li key={s.page}>
                    <Link to={s.to} className="staff-card">
                      <strong>{t(`console.nav.${s.page}`)}</strong>
                      <span className="muted">{t(`console.overview.${s.page}`)}</span>
                    </Link>
                  </li>
                ),
            )}
          </ul>
        </>
      )}
    </Console>
  );
}
