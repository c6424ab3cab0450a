#!/usr/bin/env python3
"""Generates tokenizer/unicode_tables.inc: the Unicode data the tokenizers need.

    .venv/bin/python tokenizer/gen_unicode_tables.py            # rewrites the .inc
    .venv/bin/python tokenizer/gen_unicode_tables.py --check    # fails if it would change

Base data comes from this Python's `unicodedata` (Python 3.11: Unicode 14.0.0):
general categories, simple lowercase mappings, canonical combining classes and
single-step decompositions.

The Hugging Face `tokenizers` library (the reference our tokenizers must equal)
does not use one Unicode version: its regex engine (Oniguruma) knows Unicode 16,
Rust's `char` methods know whatever the compiler shipped, and the crates behind
BertNormalizer / BertPreTokenizer / Punctuation / StripAccents and the NFx
normalizers carry much older tables. So after building the base tables this script
probes the installed `tokenizers` over every code point and records where the
reference differs, as explicit overrides:

  * general category: code points unassigned in Python's Unicode but classified by
    the reference regex engine (newer characters) take the engine's category;
  * lowercase: the mapping the reference's Lowercase normalizer applies;
  * flags (bert punctuation, bert control, bert non-spacing mark, combining mark,
    Rust-regex word character): exactly the sets the reference components use;
  * normalization: a decomposition / combining class / composition is kept only
    when the reference normalizers know it.

The summary of differences is written into the header of the .inc file.
"""
import argparse
import os
import sys
import unicodedata

import tokenizers
from tokenizers import Regex, normalizers, pre_tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "unicode_tables.inc")

GC_NAMES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
            "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
GC_INDEX = {n: i for i, n in enumerate(GC_NAMES)}

# Flag bits (must match tokenizer/unicode.h).
F_BERT_PUNCT = 1      # unicode_categories is_punctuation || ASCII punctuation (Bert/Punctuation pre-tokenizers)
F_BERT_CONTROL = 2    # BertNormalizer clean_text removes it (control/format/private use)
F_BERT_MN = 4         # BertNormalizer strip_accents removes it (non-spacing mark, old tables)
F_COMBINING = 8       # StripAccents removes it (combining mark, unicode-normalization tables)
F_RUST_WORD = 16      # Rust regex \w (Whitespace pre-tokenizer, added tokens single_word)
F_ONIG_WORD = 32      # regex engine \w
F_ONIG_DIGIT = 64     # regex engine \d
F_ONIG_SPACE = 128    # regex engine \s

CPS = [c for c in range(0x110000) if not (0xD800 <= c < 0xE000)]
CHUNK = 100000


def chunks(seq, n=CHUNK):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def regex_match_set(pattern, cps):
    """Code points (from cps) that the reference regex engine matches with `pattern` (one char)."""
    sp = pre_tokenizers.Split(Regex(pattern), "removed", invert=True)  # keep only the matches
    out = set()
    for chunk in chunks(cps):
        s = "".join(chr(c) for c in chunk)
        for _, (a, b) in sp.pre_tokenize_str(s):
            for k in range(a, b):
                out.add(chunk[k])
    return out


def per_char_normalize(norm, cps, sep="\x01"):
    """{cp: normalized string of that char alone}, batched with a separator the normalizer keeps."""
    out = {ord(sep): sep}  # the separator itself (NUL-free control or 'a') is left alone by every probe
    for chunk in chunks([c for c in cps if chr(c) != sep], 50000):
        s = sep + sep.join(chr(c) for c in chunk) + sep
        parts = norm.normalize_str(s).split(sep)
        assert len(parts) == len(chunk) + 2, (norm, len(parts), len(chunk))
        for c, p in zip(chunk, parts[1:-1]):
            out[c] = p
    return out


def runs(values, default):
    """[(start, value)] covering 0..0x10FFFF, value per code point from dict `values`."""
    out = []
    prev = None
    for c in range(0x110000):
        v = values.get(c, default)
        if v != prev:
            out.append((c, v))
            prev = v
    return out


def build():
    notes = []
    # ---------------------------------------------------------------- general category
    gc = {c: unicodedata.category(chr(c)) for c in range(0x110000)}
    py_cn = [c for c in CPS if gc[c] == "Cn"]
    added = {}
    for name in GC_NAMES:
        if name in ("Cn", "Cs"):
            continue
        for c in regex_match_set(r"\p{" + name + "}", py_cn):
            added[c] = name
    gc.update(added)
    notes.append(f"general category: {len(added)} code points unassigned in Unicode {unicodedata.unidata_version} "
                 f"take the category of the reference regex engine (newer Unicode)")
    # Sanity: the engine agrees with Python on every code point Python assigns.
    for name in ("L", "M", "N", "P", "S", "Z"):
        got = regex_match_set(r"\p{" + name + "}", [c for c in CPS if gc[c] != "Cn"])
        want = {c for c in CPS if gc[c][0] == name}
        if got != want:
            diff = sorted(got ^ want)
            notes.append(f"\\p{{{name}}}: the engine differs from unicodedata on {len(diff)} assigned code points "
                         f"(first {', '.join('U+%04X' % c for c in diff[:8])}); the engine wins")
    white = {0x9, 0xA, 0xB, 0xC, 0xD, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000} | set(range(0x2000, 0x200B))
    # ---------------------------------------------------------------- lowercase (Rust char::to_lowercase)
    lower_ref = per_char_normalize(normalizers.Lowercase(), CPS)
    lower = {}
    n_diff = 0
    for c in CPS:
        r = lower_ref[c]
        py = chr(c).lower()
        if r != py:
            n_diff += 1
        if r != chr(c):
            lower[c] = [ord(x) for x in r]
    notes.append(f"lowercase: {len(lower)} mappings; {n_diff} differ from str.lower() (reference wins)")
    # ---------------------------------------------------------------- flags
    flags = {}

    def set_flag(cset, bit):
        for c in cset:
            flags[c] = flags.get(c, 0) | bit

    # Punctuation (old unicode_categories tables + ASCII punctuation): removed by Punctuation("removed").
    punct = set()
    p = pre_tokenizers.Punctuation("removed")
    for sep, cps in (("a", [c for c in CPS if c != ord("a")]), ("b", [ord("a")])):
        for chunk in chunks(cps, 50000):
            s = sep + sep.join(chr(c) for c in chunk) + sep
            kept = [0] * len(s)
            for _, (a, b) in p.pre_tokenize_str(s):
                for k in range(a, b):
                    kept[k] = 1
            for i, c in enumerate(chunk):
                if not kept[2 * i + 1]:
                    punct.add(c)
    set_flag(punct, F_BERT_PUNCT)
    py_p = {c for c in CPS if gc[c][0] == "P" or (c < 128 and chr(c) in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")}
    notes.append(f"bert punctuation: {len(punct)} code points ({len(py_p - punct)} P* code points of Unicode "
                 f"{unicodedata.unidata_version} are not punctuation for the reference, {len(punct - py_p)} extra)")
    # BertNormalizer clean_text: removed chars (control, format, private use, NUL, U+FFFD).
    clean = per_char_normalize(normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False,
                                                          strip_accents=False, lowercase=False), CPS, sep="a")
    control = {c for c in CPS if clean[c] == ""}
    set_flag(control, F_BERT_CONTROL)
    notes.append(f"bert control: {len(control)} code points")
    # Which characters clean_text turns into ' ' must be exactly White_Space.
    to_space = {c for c in CPS if clean[c] == " " and c != 0x20}
    assert to_space == white - {0x20, 0xB, 0xC, 0x85}, sorted(to_space ^ white)  # \v \f NEL are controls: removed
    # Reference NFD / NFKD / NFC / NFKC per character.
    nfd = per_char_normalize(normalizers.NFD(), CPS)
    nfkd = per_char_normalize(normalizers.NFKD(), CPS)
    # BertNormalizer strip_accents: NFD, then non-spacing marks removed.
    strip = per_char_normalize(normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                                          strip_accents=True, lowercase=False), CPS)
    bert_mn = {c for c in CPS if nfd[c] == chr(c) and strip[c] == ""}
    set_flag(bert_mn, F_BERT_MN)
    notes.append(f"bert non-spacing marks: {len(bert_mn)} code points")
    # StripAccents: combining marks removed.
    sa = per_char_normalize(normalizers.StripAccents(), CPS)
    comb = {c for c in CPS if sa[c] == ""}
    set_flag(comb, F_COMBINING)
    notes.append(f"combining marks (StripAccents): {len(comb)} code points")
    # Rust regex \w (Whitespace pre-tokenizer: \w+|[^\w\s]+).
    ws = pre_tokenizers.Whitespace()
    rust_word = set()
    for sep, cps in (("a", [c for c in CPS if c != ord("a")]), ("b", [ord("a")])):
        for chunk in chunks(cps, 50000):
            s = sep + sep.join(chr(c) for c in chunk) + sep
            owner = [-1] * len(s)
            for idx, (_, (a, b)) in enumerate(ws.pre_tokenize_str(s)):
                for k in range(a, b):
                    owner[k] = idx
            for i, c in enumerate(chunk):
                k = 2 * i + 1
                if owner[k] >= 0 and owner[k] == owner[k - 1]:
                    rust_word.add(c)
    set_flag(rust_word, F_RUST_WORD)
    notes.append(f"Rust regex word characters: {len(rust_word)} code points")
    # The reference regex engine's \w \d \s (Oniguruma's own definitions).
    onig_word = regex_match_set(r"\w", CPS)
    onig_digit = regex_match_set(r"\d", CPS)
    onig_space = regex_match_set(r"\s", CPS)
    set_flag(onig_word, F_ONIG_WORD)
    set_flag(onig_digit, F_ONIG_DIGIT)
    set_flag(onig_space, F_ONIG_SPACE)
    notes.append(f"regex engine \\w: {len(onig_word)} code points, \\d: {len(onig_digit)}, \\s: {len(onig_space)}"
                 f" (\\s is White_Space: {onig_space == white})")
    # ---------------------------------------------------------------- normalization
    # Single-step decompositions from unicodedata, kept where the reference decomposes the char.
    decomp = {}  # cp -> (compat, [cps])
    for c in CPS:
        d = unicodedata.decomposition(chr(c))
        if not d:
            continue
        compat = d.startswith("<")
        parts = [int(x, 16) for x in d.split() if not x.startswith("<")]
        known = nfkd[c] != chr(c) if compat else nfd[c] != chr(c)
        if known:
            decomp[c] = (compat, parts)
    dropped = sum(1 for c in CPS if unicodedata.decomposition(chr(c))) - len(decomp)

    # Canonical combining classes, kept where the reference reorders with them.
    ccc = {}
    probe_cps, probes = [], []
    for c in CPS:
        k = unicodedata.combining(chr(c))
        if k == 0:
            continue
        if nfd[c] != chr(c):
            ccc[c] = k  # decomposable: its class only matters through its decomposition
            continue
        if k >= 240:
            ccc[c] = k
            continue
        y = "\u0301" if k < 230 else "\u0345"  # ccc 230 / 240: a higher class that must move after c
        probe_cps.append(c)
        probes.append("a" + y + chr(c))
    n = normalizers.NFD()
    for i in range(0, len(probes), 20000):
        batch = probes[i:i + 20000]
        out = n.normalize_str("\x01".join(batch)).split("\x01")
        for c, src, got in zip(probe_cps[i:i + 20000], batch, out):
            if got != src:  # reordered: the reference knows the class
                ccc[c] = unicodedata.combining(chr(c))
    n_ccc_py = sum(1 for c in CPS if unicodedata.combining(chr(c)))

    def full(c, compat):
        if c in decomp and (compat or not decomp[c][0]):
            out = []
            for x in decomp[c][1]:
                out.extend(full(x, compat))
            return out
        if 0xAC00 <= c <= 0xD7A3:
            s = c - 0xAC00
            out = [0x1100 + s // 588, 0x1161 + (s % 588) // 28]
            if s % 28:
                out.append(0x11A7 + s % 28)
            return out
        return [c]

    def reorder(seq):
        seq = list(seq)
        i = 0
        while i < len(seq):
            if ccc.get(seq[i], 0) == 0:
                i += 1
                continue
            j = i
            while j < len(seq) and ccc.get(seq[j], 0) != 0:
                j += 1
            seq[i:j] = sorted(seq[i:j], key=lambda x: ccc.get(x, 0))
            i = j
        return seq

    bad = [c for c in CPS if "".join(map(chr, reorder(full(c, False)))) != nfd[c]
           or "".join(map(chr, reorder(full(c, True)))) != nfkd[c]]
    assert not bad, "decomposition tables do not reproduce the reference: " + ", ".join("U+%04X" % c for c in bad[:10])

    # Primary composites: canonical pairs that the reference composes back.
    nfc_ref = normalizers.NFC()
    cand = [(c, decomp[c][1]) for c in CPS if c in decomp and not decomp[c][0] and len(decomp[c][1]) == 2]
    src = "\x01".join(chr(a) + chr(b) for _, (a, b) in cand)
    got = nfc_ref.normalize_str(src).split("\x01")
    compose = sorted((a, b, c) for (c, (a, b)), g in zip(cand, got) if g == chr(c))
    notes.append(f"normalization: {len(decomp)} decompositions ({dropped} of Unicode {unicodedata.unidata_version} "
                 f"unknown to the reference), {len(ccc)} non-zero combining classes ({n_ccc_py} in unicodedata), "
                 f"{len(compose)} primary composites")
    return gc, lower, flags, decomp, ccc, compose, notes


def emit(gc, lower, flags, decomp, ccc, compose, notes):
    L = []
    w = L.append
    w("// Generated by tokenizer/gen_unicode_tables.py: do not edit.")
    w(f"// Base: Python {sys.version.split()[0]} unicodedata, Unicode {unicodedata.unidata_version}; "
      f"reference probes: tokenizers {tokenizers.__version__}.")
    for n in notes:
        w("//   " + n)
    w("// Surrogates (U+D800..U+DFFF) never occur in valid UTF-8 and are not probed.")
    w("")

    def array(name, ctype, values, per_line=8):
        w(f"static const {ctype} {name}[] = {{")
        for i in range(0, len(values), per_line):
            w("  " + ", ".join(values[i:i + per_line]) + ",")
        w("};")
        w("")

    gc_runs = runs({c: GC_INDEX[v] for c, v in gc.items()}, GC_INDEX["Cn"])
    w(f"// General category runs: (first code point << 5) | category index ({' '.join(GC_NAMES)}).")
    array("kGcRuns", "uint32_t", ["0x%x" % ((s << 5) | v) for s, v in gc_runs])
    f_runs = runs(flags, 0)
    w("// Flag runs: (first code point << 8) | flags (see unicode.h).")
    array("kFlagRuns", "uint32_t", ["0x%x" % ((s << 8) | v) for s, v in f_runs])
    singles = sorted((c, m[0]) for c, m in lower.items() if len(m) == 1)
    multi = sorted((c, m) for c, m in lower.items() if len(m) != 1)
    w("// Lowercase: pairs (code point, lowercase) sorted by code point.")
    array("kLowerPairs", "uint32_t", ["0x%x, 0x%x" % p for p in singles], 6)
    w("// Lowercase mappings to several code points: (code point, count, code points...).")
    vals = []
    for c, m in multi:
        vals.append("0x%x" % c)
        vals.append(str(len(m)))
        vals.extend("0x%x" % x for x in m)
    array("kLowerMulti", "uint32_t", vals or ["0"])
    ccc_runs = runs(ccc, 0)
    w("// Canonical combining class runs: (first code point << 8) | class.")
    array("kCccRuns", "uint32_t", ["0x%x" % ((s << 8) | v) for s, v in ccc_runs])
    pool = []
    entries = []
    for c in sorted(decomp):
        compat, parts = decomp[c]
        entries.append("0x%x, 0x%x" % (c, (len(pool) << 8) | (0x80 if compat else 0) | len(parts)))
        pool.extend(parts)
    w("// Single-step decompositions: (code point, (pool offset << 8) | (compat ? 0x80 : 0) | length).")
    array("kDecomp", "uint32_t", entries, 6)
    array("kDecompPool", "uint32_t", ["0x%x" % x for x in pool], 10)
    w("// Primary composites: (first, second, composite) sorted by (first, second).")
    array("kCompose", "uint32_t", ["0x%x, 0x%x, 0x%x" % t for t in compose], 4)
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = emit(*build())
    if args.check:
        old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if old != text:
            sys.exit(f"{OUT} is out of date")
        print("up to date")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUT} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
