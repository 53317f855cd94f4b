"""Zensical adapter: build each language of the published tree with Zensical, into one site.

Zensical reads an mkdocs.yml-style file but runs no MkDocs plugins, so neither `torchnotes` nor
`mkdocs-static-i18n` takes part. Instead this writes one config per language (zensical.<lang>.yml at the
project root, which Zensical requires, git-ignored) from mkdocs.yml:
- docs_dir is that language's folder of the published tree, which already holds every output;
- the default language builds into the site root, every other one into <site>/<lang>/;
- section titles come from the i18n plugin's nav_translations, site_name and theme.language from its
  language entry;
- the language menu (extra.alternate) links to each language's root, and language-switch.js turns those
  links into links to the same page, which mkdocs-static-i18n does per page at build time.
Nothing here imports MkDocs or Zensical: Zensical runs as a command.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from torchnotes.errors import GeneratorFailed
from torchnotes.settings import Settings, read_config

SWITCH_JS = "assets/javascripts/language-switch.js"
_ZENSICAL_OVERRIDES = ("partials/source.html",)
# Plugins Zensical does not run; their work is done by the publish step and by this module.
_DROPPED_PLUGINS = {"torchnotes", "i18n"}


def _plugin(config: dict, name: str) -> dict:
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and name in plugin:
            return plugin[name] or {}
    return {}


def _translate_nav(nav: list, titles: dict) -> list:
    out = []
    for item in nav:
        if isinstance(item, dict):
            ((title, value),) = item.items()
            value = _translate_nav(value, titles) if isinstance(value, list) else value
            out.append({titles.get(title, title): value})
        else:
            out.append(item)
    return out


def language_configs(base: dict, settings: Settings, publish_out: Path, site_dir: Path,
                     overrides: Path) -> dict[str, dict]:
    """One Zensical config per language, keyed by language, paths relative to the project root."""
    i18n = {entry["locale"]: entry for entry in _plugin(base, "i18n").get("languages", [])}
    default = settings.languages[0]
    configs = {}
    for lang in settings.languages:
        entry = i18n.get(lang, {})
        config = copy.deepcopy(base)
        config["plugins"] = [p for p in config.get("plugins", []) if not set(p if isinstance(p, dict) else [p]) & _DROPPED_PLUGINS]
        config["docs_dir"] = str(publish_out / lang)
        config["site_dir"] = str(site_dir if lang == default else site_dir / lang)
        if lang != default and config.get("site_url"):
            # Each language is its own site: its 404 page and sitemap use its own address.
            config["site_url"] = config["site_url"].rstrip("/") + f"/{lang}/"
        if entry.get("site_name"):
            config["site_name"] = entry["site_name"]
        config.setdefault("theme", {})["language"] = entry.get("theme", {}).get("language", lang)
        if "nav" in config:
            config["nav"] = _translate_nav(config["nav"], entry.get("nav_translations", {}))
        # Each language root, relative to this language's root: the menu then works at any site prefix.
        up = "" if lang == default else "../"
        config.setdefault("extra", {})["alternate"] = [
            {"name": i18n.get(other, {}).get("name", other), "lang": other,
             "link": up + ("" if other == default else f"{other}/") or "./"}
            for other in settings.languages
        ]
        config["extra_javascript"] = list(config.get("extra_javascript", [])) + [SWITCH_JS]
        if config["theme"].get("custom_dir"):
            config["theme"]["custom_dir"] = str(overrides)
        configs[lang] = _absolute_snippets(config, settings.root.resolve())
    return configs


def _absolute_snippets(config: dict, root: Path) -> dict:
    # Zensical resolves snippet paths against its own working folder, not mkdocs.yml's.
    for ext in config.get("markdown_extensions", []):
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            options = ext["pymdownx.snippets"] or {}
            options["base_path"] = [str(root / p) for p in options.get("base_path", ["."])]
    return config


def _overrides(root: Path, base: dict, target: Path) -> Path:
    """The theme overrides Zensical can use. Its templates are not Material 9's: the search dialog and the
    worker swap (main.html, partials/search.html) would break its search. The repository link without
    GitHub API calls (partials/source.html) applies as is."""
    source = root / base.get("theme", {}).get("custom_dir", "overrides")
    if (root / target).exists():
        shutil.rmtree(root / target)
    for name in _ZENSICAL_OVERRIDES:
        if (source / name).exists():
            (root / target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, root / target / name)
    return target


def site_folder(settings: Settings, site_dir: Path) -> Path:
    """site_dir relative to the project; GeneratorFailed for a folder outside it (checked before anything runs)."""
    root = settings.root.resolve()
    site = (root / site_dir).resolve()
    if not site.is_relative_to(root) or site == root:
        # Zensical reads site_dir relative to its configuration, which is written in the project.
        raise GeneratorFailed(site_dir, f"the Zensical site must be written to a folder inside the project ({root})",
                              hint="pass one, e.g. --site-dir site-zensical (the default), then copy it elsewhere")
    return site.relative_to(root)


def build_all(settings: Settings, config_file: Path, publish_out: Path, site_dir: Path,
              zensical: str | None = None) -> int:
    """Build every language with Zensical. Raises GeneratorFailed naming the language and the config."""
    root = settings.root.resolve()
    command = zensical or shutil.which("zensical") or str(Path(sys.executable).parent / "zensical")
    if not Path(command).exists() and shutil.which(command) is None:
        raise GeneratorFailed(command, "Zensical is not installed",
                              hint="pip install -r requirements-zensical.txt (bash scripts/build_zensical.sh does)")
    publish_out = Path(publish_out).resolve().relative_to(root)
    site_dir = site_folder(settings, site_dir)
    if (root / site_dir).exists():
        shutil.rmtree(root / site_dir)
    base = read_config(config_file)
    overrides = _overrides(root, base, publish_out.parent / "zensical-overrides")
    # The default language first: its build owns the site root, the others go into folders below it.
    for lang, config in language_configs(base, settings, publish_out, site_dir, overrides).items():
        generated = root / f"zensical.{lang}.yml"
        generated.write_text("# Generated by torchnotes/generators/zensical.py from mkdocs.yml; do not edit.\n"
                             + yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
        done = subprocess.run([command, "build", "-f", generated.name], cwd=root, capture_output=True, text=True)
        if done.returncode != 0:
            raise GeneratorFailed(generated.name, f"Zensical failed on the {lang} site (exit {done.returncode})",
                                  hint=f"run it by hand to see the whole log: zensical build -f {generated.name}",
                                  details=(done.stderr or done.stdout)[-3000:])
        print(f"zensical: {lang} -> {config['site_dir']}")
    return 0
