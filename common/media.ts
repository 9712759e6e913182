/** The Link relation under which a WHEP answer names a session's layer URL (WHEP's layer extension). */
export const LAYER_REL = 'urn:ietf:params:whep:ext:core:layer';
