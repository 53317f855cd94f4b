from mkdocs.config import config_options as c
from mkdocs.config.base import Config


class NotebooksConfig(Config):
    enabled = c.Type(bool, default=True)
    """Turn the plugin off to preview prose only (code shown without outputs)."""
    execute = c.Choice(("auto", "force", "off"), default="auto")
    """auto: run pages whose code or environment changed; force: run everything; off: cache only."""
    cache_dir = c.Type(str, default=".cache/torchnotes")
    """Executed outputs, keyed by code and environment; relative to mkdocs.yml."""
    timeout = c.Type(int, default=300)
    """Seconds one cell may run; a page's front matter 'timeout:' overrides it."""
    jobs = c.Type(int, default=0)
    """Kernels run side by side; 0 means one per CPU core."""
    kernel = c.Type(str, default="python3")
    """Jupyter kernel name the pages run in."""
    memory_limit_mb = c.Type(int, default=0)
    """Address-space cap per kernel, so a runaway example fails instead of taking the machine; 0 is no cap."""
    languages = c.ListOfItems(c.Type(str), default=["en", "zh"])
    """Folders under docs/, one per language; the first is served at the site root."""
    notebooks_dir = c.Type(str, default="notebooks")
    """Where the paired .ipynb files live, relative to mkdocs.yml."""
    requirements = c.Type(str, default="requirements.txt")
    """Hashed into the cache key: changing a pin re-executes every page."""
    github_repo = c.Type(str, default="")
    """owner/name on GitHub, for the Open in Colab links."""
    branch = c.Type(str, default="main")
    """Branch the Colab links point at."""
