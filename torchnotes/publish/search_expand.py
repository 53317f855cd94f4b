"""Query expansion for the site search: what a reader may type, and the words of the index it also stands for.

The search worker (docs/assets/javascripts/workers/search-zh.js) looks the terms of a query up in a table that
torchnotes/publish/search_index.py puts into each language's index (config.torchnotes.expand), and searches for their
counterparts too, weighted below the words the reader typed. The table comes from two files:

- the glossary, the 术语表 of CONTRIBUTING.zh.md (torchnotes/pages/glossary.py). On the Chinese site the English term
  and each forbidden variant stand for the Chinese term to use (in-place -> 原地, 拷贝 -> 复制), and the Chinese
  term for the English one; on the English site the Chinese term and its variants stand for the English one.
- the synonyms (torchnotes/publish/search_synonyms_zh.yml, named by the plugin's `search_synonyms` option): what readers
  call a concept that the pages name otherwise (显卡 for GPU, multi-GPU for data parallelism). The Chinese site takes
  every entry; the English site the entries written wholly in English.

A counterpart goes into the table only where the index holds it: a glossary counterpart the pages never write is
left out; a synonym's word the index does not hold is reported (SynonymNotHeld), since the file exists only to
point at words of the pages. Keys: a Chinese key as written; an English key lowercased with the separator's
pieces joined (in-place, in place, inplace: "inplace"), which is how the worker looks up a query's Latin words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from torchnotes.errors import NotebookError
from torchnotes.pages.glossary import Term, read_glossary
from torchnotes.publish.zh import HAN

_TAG = re.compile(r"<[^>]+>")


class SynonymFileError(NotebookError):
    hint = ("search_synonyms_zh.yml maps a word readers type to a list of words the pages use, one entry a line: "
            "`显卡: [GPU]`, with a comment saying why; a key is Chinese or English, not both.")


class SynonymNotHeld(NotebookError):
    hint = ("The pages do not (or no longer) write this word, so the synonym finds nothing: point the entry at a "
            "word the pages use, or remove it.")


@dataclass(frozen=True)
class Synonym:
    key: str
    words: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Sources:
    """What the table is made from: the glossary's rows and the synonym file's entries (either may be empty)."""

    glossary: tuple[Term, ...] = ()
    synonyms: tuple[Synonym, ...] = ()
    synonyms_path: Path | None = None

    @classmethod
    def load(cls, root: Path, synonyms: str = "") -> Sources:
        """The glossary of root/CONTRIBUTING.zh.md where it exists (as `check` reads it), the synonyms if named."""
        glossary = root / "CONTRIBUTING.zh.md"
        path = root / synonyms if synonyms else None
        return cls(tuple(read_glossary(glossary)) if glossary.exists() else (),
                   tuple(read_synonyms(path)) if path else (), path)


def read_synonyms(path: Path) -> list[Synonym]:
    """The entries of the synonym file, each with its line; a malformed file is a SynonymFileError."""
    if not path.is_file():
        raise SynonymFileError(path, "the synonym file named by the torchnotes plugin's search_synonyms is missing")
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SynonymFileError(path, f"not valid YAML: {getattr(error, 'problem', error)}",
                               line=mark.line + 1 if mark else None) from None
    if not isinstance(node, yaml.MappingNode):
        raise SynonymFileError(path, "the file must be a mapping of words to lists of words")
    entries: dict[str, Synonym] = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        key = str(key_node.value).strip()
        values = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        words = tuple(str(v.value).strip() for v in values if isinstance(v, yaml.ScalarNode) and str(v.value).strip())
        if not words or len(words) != len(values):
            raise SynonymFileError(path, f"'{key}' needs a list of words (strings)", line=line)
        if key in entries:
            raise SynonymFileError(path, f"'{key}' is listed twice (also line {entries[key].line})", line=line)
        if HAN.search(key) and re.search(r"[A-Za-z0-9]", key):
            raise SynonymFileError(path, f"'{key}' mixes Chinese and English: the search splits a query there, "
                                         "so the key never matches", line=line)
        entries[key] = Synonym(key, words, line)
    return list(entries.values())


class Holdings:
    """What one language's index holds: its Latin tokens (split as Material splits them) and its Chinese text."""

    def __init__(self, docs: list[dict], separator: re.Pattern):
        self.separator = separator
        plain = [_TAG.sub(" ", field).replace("\u200b", "") for doc in docs for field in (doc["title"], doc["text"])]
        self.text = "\n".join(plain).lower()
        self.tokens = {token.lower() for field in plain for token in separator.split(field) if token}

    def holds(self, phrase: str) -> bool:
        """Every part of the phrase is in the index: a Chinese part in its text, a Latin part as its tokens."""
        for part in phrase.split():
            if HAN.search(part):
                if part.lower() not in self.text:
                    return False
            elif not (pieces := self.pieces(part)) or not set(pieces) <= self.tokens:
                return False
        return bool(phrase.split())

    def pieces(self, latin: str) -> list[str]:
        return [piece.lower() for piece in self.separator.split(latin) if piece]

    def key(self, phrase: str) -> str | None:
        """The table's key for a phrase: Chinese as written, English as its joined lowercase pieces; None if mixed."""
        phrase = phrase.strip()
        if HAN.search(phrase):
            return None if re.search(r"[A-Za-z0-9]", phrase) else "".join(phrase.split())
        return "".join(self.pieces(phrase)) or None


def glossary_pairs(terms: tuple[Term, ...], lang: str):
    """(what a reader types, the words it stands for) from each glossary row, for the site of `lang`."""
    for term in terms:
        if lang == "zh":
            for typed in (*term.names, *term.forbidden):
                yield typed, term.use
            for word in term.use:
                yield word, term.names
        else:
            for typed in (*term.use, *term.forbidden):
                yield typed, term.names


def expansion_table(docs: list[dict], separator: str, lang: str,
                    sources: Sources) -> tuple[list[list[str]], list[SynonymNotHeld]]:
    """[[key, counterpart, ...], ...] for the index of `lang`, and the synonyms whose words it does not hold."""
    held = Holdings(docs, re.compile(separator))
    table: dict[str, list[str]] = {}

    def add(typed: str, words) -> None:
        key = held.key(typed)
        if key is None:
            return  # a glossary variant written half in English ("batch 大小"): the query is split there
        for word in words:
            if held.key(word) != key and held.holds(word) and word not in table.setdefault(key, []):
                table[key].append(word)

    for typed, words in glossary_pairs(sources.glossary, lang):
        add(typed, words)
    unheld = []
    for synonym in sources.synonyms:
        # The English site takes the entries written wholly in English ("multi-GPU: [DistributedDataParallel]");
        # the Chinese site takes them all (its readers type English terms too).
        if lang != "zh" and (HAN.search(synonym.key) or any(HAN.search(word) for word in synonym.words)):
            continue
        for word in synonym.words:
            if not held.holds(word):
                unheld.append(SynonymNotHeld(sources.synonyms_path, f"'{synonym.key}': the {lang} search index "
                                             f"holds no '{word}'", line=synonym.line))
        add(synonym.key, synonym.words)
    return [[key, *words] for key, words in sorted(table.items()) if words], unheld
