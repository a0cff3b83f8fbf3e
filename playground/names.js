// Names of the code points the playground marks: the Unicode character names of the
// invisibles, bidi controls, Tag characters, variation selectors and controls that
// containment acts on, and a short label for each badge. Anything else: its code point.

const NAMED = new Map([
  [0x00ad, ['SHY', 'SOFT HYPHEN']],
  [0x034f, ['CGJ', 'COMBINING GRAPHEME JOINER']],
  [0x061c, ['ALM', 'ARABIC LETTER MARK']],
  [0x115f, ['HCF', 'HANGUL CHOSEONG FILLER']],
  [0x1160, ['HJF', 'HANGUL JUNGSEONG FILLER']],
  [0x17b4, ['KIVAQ', 'KHMER VOWEL INHERENT AQ']],
  [0x17b5, ['KIVAA', 'KHMER VOWEL INHERENT AA']],
  [0x180b, ['FVS1', 'MONGOLIAN FREE VARIATION SELECTOR ONE']],
  [0x180c, ['FVS2', 'MONGOLIAN FREE VARIATION SELECTOR TWO']],
  [0x180d, ['FVS3', 'MONGOLIAN FREE VARIATION SELECTOR THREE']],
  [0x180e, ['MVS', 'MONGOLIAN VOWEL SEPARATOR']],
  [0x180f, ['FVS4', 'MONGOLIAN FREE VARIATION SELECTOR FOUR']],
  [0x200b, ['ZWSP', 'ZERO WIDTH SPACE']],
  [0x200c, ['ZWNJ', 'ZERO WIDTH NON-JOINER']],
  [0x200d, ['ZWJ', 'ZERO WIDTH JOINER']],
  [0x200e, ['LRM', 'LEFT-TO-RIGHT MARK']],
  [0x200f, ['RLM', 'RIGHT-TO-LEFT MARK']],
  [0x202a, ['LRE', 'LEFT-TO-RIGHT EMBEDDING']],
  [0x202b, ['RLE', 'RIGHT-TO-LEFT EMBEDDING']],
  [0x202c, ['PDF', 'POP DIRECTIONAL FORMATTING']],
  [0x202d, ['LRO', 'LEFT-TO-RIGHT OVERRIDE']],
  [0x202e, ['RLO', 'RIGHT-TO-LEFT OVERRIDE']],
  [0x2060, ['WJ', 'WORD JOINER']],
  [0x2061, ['FA', 'FUNCTION APPLICATION']],
  [0x2062, ['IT', 'INVISIBLE TIMES']],
  [0x2063, ['IS', 'INVISIBLE SEPARATOR']],
  [0x2064, ['IP', 'INVISIBLE PLUS']],
  [0x2066, ['LRI', 'LEFT-TO-RIGHT ISOLATE']],
  [0x2067, ['RLI', 'RIGHT-TO-LEFT ISOLATE']],
  [0x2068, ['FSI', 'FIRST STRONG ISOLATE']],
  [0x2069, ['PDI', 'POP DIRECTIONAL ISOLATE']],
  [0x206a, ['ISS', 'INHIBIT SYMMETRIC SWAPPING']],
  [0x206b, ['ASS', 'ACTIVATE SYMMETRIC SWAPPING']],
  [0x206c, ['IAFS', 'INHIBIT ARABIC FORM SHAPING']],
  [0x206d, ['AAFS', 'ACTIVATE ARABIC FORM SHAPING']],
  [0x206e, ['NADS', 'NATIONAL DIGIT SHAPES']],
  [0x206f, ['NODS', 'NOMINAL DIGIT SHAPES']],
  [0x3164, ['HF', 'HANGUL FILLER']],
  [0xfeff, ['BOM', 'ZERO WIDTH NO-BREAK SPACE']],
  [0xffa0, ['HWHF', 'HALFWIDTH HANGUL FILLER']],
  [0x1bca0, ['SFLO', 'SHORTHAND FORMAT LETTER OVERLAP']],
  [0x1bca1, ['SFCO', 'SHORTHAND FORMAT CONTINUING OVERLAP']],
  [0x1bca2, ['SFDS', 'SHORTHAND FORMAT DOWN STEP']],
  [0x1bca3, ['SFUS', 'SHORTHAND FORMAT UP STEP']],
  [0xe0001, ['LANG', 'LANGUAGE TAG']],
  [0xe007f, ['CANCEL', 'CANCEL TAG']],
]);

const C0 = 'NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US'.split(' ');
const C0_NAMES = [
  'NULL', 'START OF HEADING', 'START OF TEXT', 'END OF TEXT', 'END OF TRANSMISSION', 'ENQUIRY',
  'ACKNOWLEDGE', 'ALERT', 'BACKSPACE', 'CHARACTER TABULATION', 'LINE FEED', 'LINE TABULATION',
  'FORM FEED', 'CARRIAGE RETURN', 'SHIFT OUT', 'SHIFT IN', 'DATA LINK ESCAPE', 'DEVICE CONTROL ONE',
  'DEVICE CONTROL TWO', 'DEVICE CONTROL THREE', 'DEVICE CONTROL FOUR', 'NEGATIVE ACKNOWLEDGE',
  'SYNCHRONOUS IDLE', 'END OF TRANSMISSION BLOCK', 'CANCEL', 'END OF MEDIUM', 'SUBSTITUTE', 'ESCAPE',
  'INFORMATION SEPARATOR FOUR', 'INFORMATION SEPARATOR THREE', 'INFORMATION SEPARATOR TWO',
  'INFORMATION SEPARATOR ONE',
];
const C1 = 'PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 DCS PU1 PU2 STS CCH MW SPA EPA SOS SGC SCI CSI ST OSC PM APC'.split(' ');

const ASCII_NAMES = {
  ' ': 'SPACE', '!': 'EXCLAMATION MARK', '"': 'QUOTATION MARK', '#': 'NUMBER SIGN', $: 'DOLLAR SIGN',
  '%': 'PERCENT SIGN', '&': 'AMPERSAND', "'": 'APOSTROPHE', '(': 'LEFT PARENTHESIS', ')': 'RIGHT PARENTHESIS',
  '*': 'ASTERISK', '+': 'PLUS SIGN', ',': 'COMMA', '-': 'HYPHEN-MINUS', '.': 'FULL STOP', '/': 'SOLIDUS',
  ':': 'COLON', ';': 'SEMICOLON', '<': 'LESS-THAN SIGN', '=': 'EQUALS SIGN', '>': 'GREATER-THAN SIGN',
  '?': 'QUESTION MARK', '@': 'COMMERCIAL AT', '[': 'LEFT SQUARE BRACKET', '\\': 'REVERSE SOLIDUS',
  ']': 'RIGHT SQUARE BRACKET', '^': 'CIRCUMFLEX ACCENT', _: 'LOW LINE', '`': 'GRAVE ACCENT',
  '{': 'LEFT CURLY BRACKET', '|': 'VERTICAL LINE', '}': 'RIGHT CURLY BRACKET', '~': 'TILDE',
};
const DIGITS = 'ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE'.split(' ');

function asciiName(ch) {
  if (ch >= 'a' && ch <= 'z') return `LATIN SMALL LETTER ${ch.toUpperCase()}`;
  if (ch >= 'A' && ch <= 'Z') return `LATIN CAPITAL LETTER ${ch}`;
  if (ch >= '0' && ch <= '9') return `DIGIT ${DIGITS[ch.charCodeAt(0) - 48]}`;
  return ASCII_NAMES[ch];
}

/** `U+200B`-style code point. */
export function hex(cp) {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `[label, name]` of a code point: a short badge label and its character name. */
export function nameOf(cp) {
  const named = NAMED.get(cp);
  if (named) return named;
  if (cp < 0x20) return [C0[cp], C0_NAMES[cp]];
  if (cp === 0x7f) return ['DEL', 'DELETE'];
  if (cp >= 0x80 && cp <= 0x9f) return [C1[cp - 0x80], `<control-${cp.toString(16).toUpperCase().padStart(4, '0')}>`];
  if (cp >= 0xfe00 && cp <= 0xfe0f) return [`VS${cp - 0xfe00 + 1}`, `VARIATION SELECTOR-${cp - 0xfe00 + 1}`];
  if (cp >= 0xe0100 && cp <= 0xe01ef) return [`VS${cp - 0xe0100 + 17}`, `VARIATION SELECTOR-${cp - 0xe0100 + 17}`];
  if (cp >= 0xe0020 && cp <= 0xe007e) {
    const ch = String.fromCharCode(cp - 0xe0000);
    return [`TAG ${ch}`, `TAG ${asciiName(ch)}`];
  }
  if (cp >= 0x1d173 && cp <= 0x1d17a) {
    const what = ['BEGIN BEAM', 'END BEAM', 'BEGIN TIE', 'END TIE', 'BEGIN SLUR', 'END SLUR', 'BEGIN PHRASE', 'END PHRASE'];
    return ['MUS', `MUSICAL SYMBOL ${what[cp - 0x1d173]}`];
  }
  if ((cp >= 0xe0000 && cp <= 0xe0fff) || (cp >= 0xfff0 && cp <= 0xfff8) || (cp >= 0x2065 && cp <= 0x2065)) {
    return [hex(cp), 'reserved default-ignorable code point'];
  }
  return [hex(cp), ''];
}

/** The ASCII a run of Tag characters spells (the rest as `?`). */
export function tagText(text) {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    out += cp >= 0xe0020 && cp <= 0xe007e ? String.fromCharCode(cp - 0xe0000) : '';
  }
  return out;
}
