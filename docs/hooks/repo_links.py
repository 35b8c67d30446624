"""MkDocs hook: pages link by their paths in the repository, and the site follows those links.

Every page reads the same on a clone and on the site: the README links ``docs/RULES.md``,
a page under ``docs/`` links ``../results/take_study/``. The site holds what those links
name:

- ``README.md`` is the site's home page;
- ``results/`` is copied in whole: each study folder's ``README.md`` is its page, with the
  folder's files listed under it, and ``results/README.md`` is the index;
- the model cards (``agents/checkpoints/*.md``, with their curves and tables) are pages.

Each link is rewritten to where its target sits on the site; a link to another file of the
repository (a module, a script) shows its path as code there; and a link to a file the
repository does not hold is a warning (so ``mkdocs build --strict`` fails on it). A picture
from ``results/`` becomes a link to its study's folder.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.repo_links")

#: Files of the repository outside ``docs/`` that the site carries, as glob patterns.
MOUNTED = ["results/**/*", "agents/checkpoints/*.md", "agents/checkpoints/*.png",
           "agents/checkpoints/*.csv"]  # fmt: skip

LINK = re.compile(r"\]\(([^)\s]+)((?:\s+\"[^\"]*\")?)\)")
TEXT_LINK = re.compile(r"(?<![!\]])\[([^\[\]]*)\]\(([^)\s#]+)\)")
PICTURE = re.compile(r"(?<!\[)!\[([^\]]*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"\s*(```|~~~)")

_root = Path()
_site_of: dict[str, str] = {}  # repository path -> the site's source path
_repo_of: dict[str, str] = {}  # the site's source path -> repository path
_study_page: dict[str, str] = {}  # "results/<study>" -> its page's source path
_study_files: dict[str, list[str]] = {}  # "results/<study>" -> its files' repository paths


def on_files(files: Files, config: Any) -> Files:
    global _root
    _root = Path(config.config_file_path).parent
    _site_of.clear(), _repo_of.clear(), _study_page.clear(), _study_files.clear()
    _mount(files, config, "README.md", "index.md")
    for pattern in MOUNTED:
        for path in sorted(_root.glob(pattern)):
            if path.is_file():
                repo = path.relative_to(_root).as_posix()
                site = repo
                if repo.startswith("results/") and path.name == "README.md":
                    site = repo.removesuffix("README.md") + "index.md"  # a folder's page
                _mount(files, config, repo, site)
    results = _root / "results"
    studies = {p.name for p in results.iterdir() if p.is_dir()} if results.is_dir() else set()
    for study in sorted(studies):
        folder = f"results/{study}"
        _study_files[folder] = sorted(
            p.relative_to(_root).as_posix() for p in (_root / folder).rglob("*") if p.is_file()
        )
        if f"{folder}/README.md" in _site_of:
            _study_page[folder] = f"{folder}/index.md"
            continue
        page = f"{folder}/index.md"
        files.append(File.generated(config, page, content=_folder_page(folder)))
        _study_page[folder] = page
        _repo_of[page] = page
    _study_page["results"] = "results/index.md"
    if "results/README.md" not in _site_of:
        files.append(File.generated(config, "results/index.md", content=_results_index()))
        _repo_of["results/index.md"] = "results/index.md"
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    site = page.file.src_uri
    repo = _repo_of.get(site, f"docs/{site}")
    out, in_code = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        if not in_code:
            line = PICTURE.sub(lambda m: _picture(m, repo), line)
            line = TEXT_LINK.sub(lambda m: _source_link(m, repo), line)
            line = LINK.sub(lambda m: f"]({_target(m.group(1), repo, site)}{m.group(2)})", line)
        out.append(line)
    markdown = "\n".join(out) + "\n"
    folder = posixpath.dirname(repo)
    if repo.endswith("/README.md") and folder in _study_files:
        markdown += _file_list(folder, site)
    return markdown


def _mount(files: Files, config: Any, repo: str, site: str) -> None:
    files.append(File.generated(config, site, abs_src_path=str(_root / repo)))
    _site_of[repo] = site
    _repo_of[site] = repo


def _picture(match: re.Match[str], page_repo: str) -> str:
    """A picture from ``results/`` as a link to its study's folder."""
    alt, src = match.groups()
    target = _resolve(src, page_repo)
    if not target.startswith("results/"):
        return match.group(0)
    study = _study_of(target)
    if study is None:
        log.warning(f"{page_repo}: picture {src} belongs to no study of results/")
        return match.group(0)
    if posixpath.dirname(page_repo) == study:
        return match.group(0)  # already on its study's page
    folder = posixpath.relpath(study, posixpath.dirname(page_repo) or ".")
    return f"[![{alt}]({src})]({folder}/)"


def _source_link(match: re.Match[str], page_repo: str) -> str:
    """A link to a file of the repository that the site does not carry (a module, a script)
    stays on a clone; on the site it is the path, as code."""
    text, target = match.groups()
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return match.group(0)
    repo = _resolve(target, page_repo)
    if _site_path(repo) is not None or not (_root / repo).is_file():
        return match.group(0)  # on the site, or a broken link (warned about below)
    log.info(f"{page_repo}: {target} is not on the site; shown as its path")
    return text if f"`{repo}`" in text else f"{text} (`{repo}`)"


def _target(target: str, page_repo: str, page_site: str) -> str:
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return target
    path, _, anchor = target.partition("#")
    if not path:
        return target
    site = _site_path(_resolve(path, page_repo))
    if site is None:
        log.warning(f"{page_repo}: the link {target} names nothing the site holds")
        return target
    link = posixpath.relpath(site, posixpath.dirname(page_site) or ".")
    return link + (f"#{anchor}" if anchor else "")


def _resolve(path: str, page_repo: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(page_repo), path))


def _site_path(repo: str) -> str | None:
    if repo in _study_page:
        return _study_page[repo]
    if repo in _site_of:
        return _site_of[repo]
    if repo.startswith("docs/") and (_root / repo).exists():
        return repo.removeprefix("docs/")
    return None


def _study_of(repo: str) -> str | None:
    for folder, paths in _study_files.items():
        if repo in paths:
            return folder
    return None


def _folder_page(folder: str) -> str:
    return (
        f"# {folder}/\n\nThis study's committed figures are still in `results/` itself "
        "(the study has no folder of its own yet).\n" + _file_list(folder, f"{folder}/index.md")
    )


def _file_list(folder: str, page_site: str) -> str:
    lines = ["", "## Files", ""]
    for repo in _study_files[folder]:
        if repo == f"{folder}/README.md":
            continue
        link = posixpath.relpath(_site_of[repo], posixpath.dirname(page_site))
        name = repo.removeprefix(f"{folder}/") if repo.startswith(f"{folder}/") else repo
        lines.append(f"- [{name}]({link})")
    return "\n".join(lines) + "\n"


def _results_index() -> str:
    lines = ["# results/", "", "The committed figures, one folder per study:", ""]
    for folder in sorted(f for f in _study_page if f != "results"):
        name = folder.removeprefix("results/")
        lines.append(f"- [{name}/]({name}/)")
    return "\n".join(lines) + "\n"
