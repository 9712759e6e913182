import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { api } from '../lib/api';

export interface ApiData<T> {
  /** The answer; null while loading, after a failure, or while there is nothing to ask. */
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Asks again (after a failure, or when what it shows has changed). */
  reload: () => void;
  setData: Dispatch<SetStateAction<T | null>>;
}

/** GET `path` once the component is in the browser (null: not yet, e.g. while signed out). */
export function useApiData<T>(path: string | null): ApiData<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    api<T>('GET', path).then(
      (answer) => {
        if (!live) return;
        setData(answer);
        setError(null);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [path, round]);
  const reload = useCallback(() => {
    setError(null);
    setRound((r) => r + 1);
  }, []);
  return { data, error, loading: path !== null && data === null && !error, reload, setData };
}
