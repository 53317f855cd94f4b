"""Options of Material's search plugin for each language's build.

Each language is its own MkDocs build with its own index, written by Material's search plugin. Use
`plugin_options(lang)` as that build's `plugins: - search:` block. Nothing else is generated at build time:
the query side (docs/assets/javascripts/workers/search-zh.js, loaded by overrides/main.html) learns the
index's Chinese words from the index itself when the search worker starts.

Chinese is cut into words with jieba by Material's search plugin when the index is written (it puts a
zero-width space between words). jieba's general dictionary splits many terms of this site (学习率 ->
学习/率, 交叉熵 -> 交叉/熵, 二分类 -> 二/分类), so the terms of search_words_zh.txt are added to it
(Material's documented `jieba_dict_user` option; the path is relative to the directory mkdocs runs in,
the repository root). In the browser the worker cuts a query into the words the index holds, so the query
and the index are cut the same way.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZH_USER_DICT = Path(__file__).resolve().with_name("search_words_zh.txt")

# Splits words at white space and the zero-width spaces Material puts between jieba's words, at Chinese
# punctuation, and inside API names: snake_case, dotted.names, CamelCase (DataLoader -> data, loader).
SEPARATOR = (r'[\s\u200b\u3000\-_,:;!?=\[\]()"`/、。，．？！；：（）“”‘’《》「」]+'
             r'|\.(?!\d)|&[lg]t;|(?!\b)(?=[A-Z][a-z])')


def plugin_options(lang: str) -> dict:
    """The `search` plugin's options for the build of `lang` ("en" or "zh"), as mkdocs.yml wants them."""
    if lang == "en":
        return {"lang": ["en"], "separator": SEPARATOR}
    if lang == "zh":
        return {"lang": ["zh"], "separator": SEPARATOR,
                "jieba_dict_user": ZH_USER_DICT.relative_to(ROOT).as_posix()}
    raise ValueError(f"no search options for language {lang!r}: add them to torchnotes/search.py")
