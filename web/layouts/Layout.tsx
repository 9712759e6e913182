import type { ReactNode } from 'react';
import type { Layout as LayoutName } from '../../common/routes';
import { Footer } from '../ui/Footer';
import { Header, MiniBar } from '../ui/Header';

/**
 * The six layouts of spec §2, and the staff console's. Each page's main landmark is `#main` (skip
 * link target).
 */
export function Layout({ name, children }: { name: LayoutName; children: ReactNode }) {
  switch (name) {
    case 'main':
      return (
        <>
          <Header />
          <main id="main" className="main main--wide">
            {children}
          </main>
          <Footer />
        </>
      );
    case 'basic':
      return (
        <>
          <Header />
          <main id="main" className="main main--narrow">
            {children}
          </main>
          <Footer />
        </>
      );
    case 'protocol':
      return (
        <>
          <Header />
          <main id="main" className="main main--doc">
            {children}
          </main>
          <Footer />
        </>
      );
    case 'live':
      return (
        <div className="theme-dark live-shell">
          <Header variant="dark" />
          <main id="main" className="main main--live">
            {children}
          </main>
        </div>
      );
    case 'full':
      return (
        <div className="full-shell">
          <MiniBar />
          <main id="main" className="main main--full">
            {children}
          </main>
        </div>
      );
    case 'staff':
      // The console's own frame (its navigation, the second factor) is web/staff/Console.tsx.
      return (
        <>
          <MiniBar />
          <main id="main" className="main main--staff">
            {children}
          </main>
        </>
      );
    case 'none':
      return (
        <>
          <MiniBar />
          <main id="main" className="main main--bare">
            {children}
          </main>
        </>
      );
  }
}
