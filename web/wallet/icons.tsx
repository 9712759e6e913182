// The wallet's currencies (24×24, decorative: the text beside them names the currency).
const base = { width: 24, height: 24, viewBox: '0 0 24 24', 'aria-hidden': true, focusable: false } as const;

export const CoinIcon = () => (
  <svg {...base}>
    <circle cx="12" cy="12" r="10" fill="#f5b301" />
    <circle cx="12" cy="12" r="7" fill="none" stroke="#fff3c4" strokeWidth="1.6" />
    <path
      d="M12 7.5 13.4 10.6 16.6 11 14.2 13.2 14.8 16.4 12 14.8 9.2 16.4 9.8 13.2 7.4 11 10.6 10.6z"
      fill="#fff3c4"
    />
  </svg>
);

export const DiamondIcon = () => (
  <svg {...base}>
    <path d="M6.5 4h11L22 9.5 12 21 2 9.5z" fill="#38bdf8" />
    <path d="M2 9.5h20M8.5 4 7 9.5l5 11.5 5-11.5L15.5 4" fill="none" stroke="#e0f7ff" strokeWidth="1.2" />
  </svg>
);
