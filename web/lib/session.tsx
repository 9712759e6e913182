import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useFeedback } from './feedback';
import { useI18n } from '../i18n/i18n';
import { api, sessionEnded } from './api';
import { clearStoredLogin, readStoredLogin, writeStoredLogin, type StoredUser } from './stored-login';

interface Auth {
  /** The signed-in user, or null (anonymous; also during server rendering). */
  user: StoredUser | null;
  /**
   * False while the server renders and until the browser has read the stored login: a page that
   * shows a visitor something else (a sign-in prompt) holds it back until then, or a signed-in
   * person would see it flash before their own page.
   */
  known: boolean;
  signedIn: (user: StoredUser) => void;
  signOut: (everywhere?: boolean) => Promise<void>;
  /** Opens the login dialog; with a reason such as 'Please sign in first' shown as a toast. */
  requireLogin: (reason?: string) => void;
  loginOpen: boolean;
  closeLogin: () => void;
}

const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const a = useContext(AuthContext);
  if (!a) throw new Error('useAuth outside AuthProvider');
  return a;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<StoredUser | null>(null);
  const [known, setKnown] = useState(false);
  const [loginOpen, setLoginOpen] = useState(false);
  const { toast } = useFeedback();
  const { t } = useI18n();

  // Read by the session-ended listener: only a signed-in page that is not signing out on its own
  // is told 'Please log in again' (a sign-out here ends the session too, and says so itself).
  const hasUser = useRef(false);
  const leaving = useRef(false);
  useEffect(() => {
    hasUser.current = user !== null;
  }, [user]);

  const forget = useCallback(() => {
    hasUser.current = false;
    clearStoredLogin();
    setUser(null);
  }, []);

  useEffect(() => {
    // Listened for whether or not a login was stored: someone may sign in on this page later.
    const ended = () => {
      if (!hasUser.current || leaving.current) return;
      forget();
      toast(t('error.invalid_session'));
    };
    sessionEnded.addEventListener('ended', ended);
    return () => sessionEnded.removeEventListener('ended', ended);
  }, [forget, toast, t]);

  useEffect(() => {
    // The stored login shows the user at once; the server then confirms the session is alive.
    const stored = readStoredLogin();
    // After hydration on purpose: the server renders every page signed out (pages are shared).
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setKnown(true);
    if (!stored) return;
    setUser(stored);
    hasUser.current = true;
    api<{ user_info: StoredUser }>('GET', '/api/v1/me')
      .then(({ user_info }) => {
        writeStoredLogin(user_info);
        setUser(user_info);
      })
      .catch(() => undefined);
  }, []);

  const value = useMemo<Auth>(
    () => ({
      user,
      known,
      loginOpen,
      signedIn(u) {
        hasUser.current = true;
        writeStoredLogin(u);
        setUser(u);
        setLoginOpen(false);
        // The sign-in answer is the stored-login user; /me adds what the page may also need
        // (staff or not) without waiting for the next page load.
        api<{ user_info: StoredUser }>('GET', '/api/v1/me')
          .then(({ user_info }) => {
            writeStoredLogin(user_info);
            setUser((now) => (now?.uid === user_info.uid ? user_info : now));
          })
          .catch(() => undefined);
      },
      async signOut(everywhere) {
        leaving.current = true;
        try {
          await api('POST', everywhere ? '/api/v1/auth/logout-all' : '/api/v1/auth/logout', {}).catch(
            () => undefined,
          );
        } finally {
          leaving.current = false;
        }
        forget();
        toast(t('auth.signedOut'));
      },
      requireLogin(reason) {
        if (reason) toast(reason);
        setLoginOpen(true);
      },
      closeLogin: () => setLoginOpen(false),
    }),
    [user, known, loginOpen, forget, toast, t],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
