"""The two builds of an A/B (``tools.bench.ab``): git worktrees of the
named commits and a numba cache of each build's own.

A commit is checked out with ``git worktree add --detach`` into a folder
of the A/B's scratch directory and removed at the end.  The folder's name
and the files' modification times (set to the commit's time) are the same
on every A/B of that commit, and its numba cache (``NUMBA_CACHE_DIR``) is
kept: numba finds a cached function by its source file's path and
modification time, so a second A/B of the same commit (a re-run, a
bisection step) loads what the first one compiled.  ``WORKTREE`` names the
repository's working tree as it is (uncommitted edits included).
"""
import os
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WORKTREE = "WORKTREE"


@dataclass(frozen=True)
class Build:
    """A build: its name as given, its commit (None for the working
    tree), the folder it runs from and its numba cache folder."""
    name: str
    commit: str
    root: Path
    cache: Path

    @property
    def label(self):
        """Short name: the commit's 10 first digits, or ``WORKTREE``."""
        return self.commit[:10] if self.commit else WORKTREE


def git(repo, *args):
    """Output of ``git -C repo args`` (stripped); raises on failure."""
    res = subprocess.run(["git", "-C", str(repo), *args],
                         capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed: "
                           f"{res.stderr.strip()}")
    return res.stdout.strip()


def resolve(repo, rev):
    """Full hash of the commit ``rev`` names (a clear error otherwise)."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet",
                   f"{rev}^{{commit}}")
    except RuntimeError:
        raise ValueError(f"--old/--new: {rev!r} names no commit of "
                         f"{repo} (give a commit, a branch, a tag or "
                         f"{WORKTREE})") from None


def scratch_dir(path=None):
    """The A/B's scratch folder (worktrees and numba caches): ``path``, or
    a private folder of the system's temporary directory."""
    base = Path(path) if path else (
        Path(tempfile.gettempdir()) / f"bench_ab_{os.getuid()}")
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    return base


def _stamp_files(root, commit_time):
    """Give every tracked file of ``root`` the commit's time, so that
    numba's cache of an earlier checkout of the commit stays valid."""
    names = git(root, "ls-files", "-z").split("\0")
    for name in filter(None, names):
        path = root / name
        if path.is_file() and not path.is_symlink():
            os.utime(path, (commit_time, commit_time))


@contextmanager
def checkout(repo, rev, scratch):
    """The ``Build`` of ``rev`` (a worktree in ``scratch``, removed on
    exit), or of the working tree for ``WORKTREE``."""
    repo = Path(repo)
    if rev == WORKTREE:
        yield Build(rev, None, repo, scratch / "numba-worktree")
        return
    commit = resolve(repo, rev)
    root = scratch / f"tree-{commit[:12]}"
    if root.exists():
        raise RuntimeError(
            f"{root} exists (another A/B of {commit[:10]} running, or one "
            f"killed): remove it with `git worktree remove --force {root}`")
    git(repo, "worktree", "add", "--detach", str(root), commit)
    try:
        _stamp_files(root, int(git(repo, "show", "-s", "--format=%ct",
                                   commit)))
        yield Build(rev, commit, root, scratch / f"numba-{commit[:12]}")
    finally:
        git(repo, "worktree", "remove", "--force", str(root))
