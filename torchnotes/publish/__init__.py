"""Publishing: executed pages become plain Markdown per language, with their notebooks, scripts and search."""
