from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from torchnotes.settings import DEFAULTS


class NotebooksConfig(Config):
    enabled = c.Type(bool, default=True)
    """Turn the plugin off to preview prose only (code shown without outputs)."""
    execute = c.Choice(("auto", "force", "off"), default=DEFAULTS.execute)
    """auto: run pages whose code or environment changed; force: run everything; off: cache only."""
    cache_dir = c.Type(str, default=DEFAULTS.cache_dir)
    """Executed outputs, keyed by code and environment; relative to mkdocs.yml."""
    timeout = c.Type(int, default=DEFAULTS.timeout)
    """Seconds one cell may run; a page's front matter 'timeout:' overrides it."""
    jobs = c.Type(int, default=DEFAULTS.jobs)
    """Kernels run side by side; 0 means one per CPU core."""
    kernel = c.Type(str, default=DEFAULTS.kernel)
    """Jupyter kernel name the pages run in."""
    memory_limit_mb = c.Type(int, default=DEFAULTS.memory_limit_mb)
    """Address-space cap per kernel, so a runaway example fails instead of taking the machine; 0 is no cap."""
    languages = c.ListOfItems(c.Type(str), default=list(DEFAULTS.languages))
    """Folders under docs/, one per language; the first is served at the site root."""
    publish_dir = c.Type(str, default=DEFAULTS.publish_dir)
    """Where the publish step writes the Markdown MkDocs builds from (one folder per language)."""
    notebooks_dir = c.Type(str, default=DEFAULTS.notebooks_dir)
    """Where the paired .ipynb files live, relative to mkdocs.yml."""
    requirements = c.Type(str, default=DEFAULTS.requirements)
    """Hashed into the cache key: changing a pin re-executes every page."""
    github_repo = c.Type(str, default=DEFAULTS.github_repo)
    """owner/name on GitHub, for the Open in Colab links."""
    branch = c.Type(str, default=DEFAULTS.branch)
    """Branch the Colab links point at."""
    search_synonyms = c.Type(str, default=DEFAULTS.search_synonyms)
    """Words readers type for what the Chinese pages name otherwise (torchnotes/publish/search_synonyms_zh.yml), for the
    search's query expansion; relative to mkdocs.yml. Empty: the glossary alone."""
    search_words = c.Type(str, default=DEFAULTS.search_words)
    """Words jieba keeps whole when Material's search cuts Chinese (学习率, 交叉熵), loaded with jieba's
    load_userdict only when a page with Chinese is indexed again (torchnotes/generators/mkdocs/kept_search.py)."""
