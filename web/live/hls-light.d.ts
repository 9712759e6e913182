// hls.js's light build (no alternate audio, subtitles, DRM or CMCD: none of which LL-HLS of a
// live broadcast uses; a third smaller) has the full build's API but ships no types of its own.
declare module 'hls.js/light' {
  export * from 'hls.js';
  export { default } from 'hls.js';
}
