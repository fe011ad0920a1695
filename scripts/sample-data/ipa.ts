/**
 * ARPAbet (as in the CMU Pronouncing Dictionary) to IPA, General American, with primary (ˈ) and secondary (ˌ)
 * stress marks placed before the stressed syllable. Syllables are split by the maximal-onset rule over the
 * consonant clusters English allows at the start of a syllable.
 */

const VOWELS: Record<string, { stressed: string; unstressed: string }> = {
  AA: { stressed: 'ɑ', unstressed: 'ɑ' },
  AE: { stressed: 'æ', unstressed: 'æ' },
  AH: { stressed: 'ʌ', unstressed: 'ə' },
  AO: { stressed: 'ɔ', unstressed: 'ɔ' },
  AW: { stressed: 'aʊ', unstressed: 'aʊ' },
  AY: { stressed: 'aɪ', unstressed: 'aɪ' },
  EH: { stressed: 'ɛ', unstressed: 'ɛ' },
  ER: { stressed: 'ɝ', unstressed: 'ɚ' },
  EY: { stressed: 'eɪ', unstressed: 'eɪ' },
  IH: { stressed: 'ɪ', unstressed: 'ɪ' },
  IY: { stressed: 'i', unstressed: 'i' },
  OW: { stressed: 'oʊ', unstressed: 'oʊ' },
  OY: { stressed: 'ɔɪ', unstressed: 'ɔɪ' },
  UH: { stressed: 'ʊ', unstressed: 'ʊ' },
  UW: { stressed: 'u', unstressed: 'u' },
};

const CONSONANTS: Record<string, string> = {
  B: 'b', CH: 'tʃ', D: 'd', DH: 'ð', F: 'f', G: 'ɡ', HH: 'h', JH: 'dʒ', K: 'k', L: 'l', M: 'm', N: 'n',
  NG: 'ŋ', P: 'p', R: 'r', S: 's', SH: 'ʃ', T: 't', TH: 'θ', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};

/** Consonant clusters that may open an English syllable (single consonants other than NG always may). */
const ONSETS = new Set([
  'P R', 'P L', 'B R', 'B L', 'T R', 'T W', 'D R', 'D W', 'K R', 'K L', 'K W', 'G R', 'G L', 'G W',
  'F R', 'F L', 'TH R', 'TH W', 'SH R', 'S P', 'S T', 'S K', 'S M', 'S N', 'S L', 'S W', 'S F',
  'P Y', 'B Y', 'K Y', 'F Y', 'M Y', 'V Y', 'HH Y', 'G Y', 'N Y', 'L Y',
  'S P R', 'S P L', 'S T R', 'S K R', 'S K W', 'S K L', 'S P Y', 'S K Y',
]);

function isOnset(cluster: readonly string[]): boolean {
  if (cluster.length === 0) return true;
  if (cluster.length === 1) return cluster[0] !== 'NG';
  return ONSETS.has(cluster.join(' '));
}

export class ArpabetError extends Error {}

/** `"AE1 B AH0 K AH0 S"` → `"/ˈæbəkəs/"`. Throws ArpabetError on a phone it does not know. */
export function arpabetToIpa(arpabet: string): string {
  const phones = arpabet.trim().split(/\s+/);
  const symbols: string[] = [];
  const marks = new Map<number, string>();
  let lastVowel = -1;
  for (const phone of phones) {
    const match = /^([A-Z]+)([012])?$/.exec(phone);
    const base = match?.[1];
    if (!base) throw new ArpabetError(`not an ARPAbet phone: ${phone}`);
    const vowel = VOWELS[base];
    if (vowel) {
      const stress = match[2] ?? '0';
      if (stress !== '0') {
        // The stress mark goes before the longest legal onset among the consonants since the last vowel.
        // The first syllable takes every consonant before it.
        let start = lastVowel < 0 ? 0 : lastVowel + 1;
        const current = symbols.length;
        while (lastVowel >= 0 && start < current && !isOnset(phones.slice(start, current))) start += 1;
        marks.set(start, stress === '1' ? 'ˈ' : 'ˌ');
      }
      symbols.push(stress === '0' ? vowel.unstressed : vowel.stressed);
      lastVowel = symbols.length - 1;
      continue;
    }
    const consonant = CONSONANTS[base];
    if (consonant === undefined || match[2] !== undefined) throw new ArpabetError(`not an ARPAbet phone: ${phone}`);
    symbols.push(consonant);
  }
  const text = symbols.map((symbol, i) => (marks.get(i) ?? '') + symbol).join('');
  return `/${text}/`;
}
