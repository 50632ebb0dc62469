#!/usr/bin/env bash
# Formats the whole tree with Prettier once (.prettierrc.json, .prettierignore), as its own commit, after
# every branch that was open when the formatter came in has been merged. From then on `npm run lint`
# checks the formatting and `npm run format` applies it.
#
#   scripts/format-all.sh            format, then print what changed (nothing is committed)
#   scripts/format-all.sh --commit   format and commit, then record the commit in .git-blame-ignore-revs
#                                    (a second commit), so `git blame` skips the reformatting
#
# It refuses to run on a work tree with changes, so the formatting commit holds nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

commit=false
case "${1:-}" in
  '') ;;
  --commit) commit=true ;;
  *) echo "usage: scripts/format-all.sh [--commit]" >&2; exit 2 ;;
esac

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "format-all: the work tree has changes; commit or stash them first" >&2
  exit 1
fi

npx --no-install prettier --write . --log-level warn
files=$(git diff --name-only | wc -l)
echo "format-all: Prettier changed ${files} files:"
git diff --shortstat

if [ "$files" -eq 0 ]; then exit 0; fi
npx --no-install prettier --check . --log-level warn

if $commit; then
  git commit -q -a -m "Format the whole tree with Prettier (npm run format)" \
    -m "No change of behaviour: the formatting of .prettierrc.json applied once to every file it covers. This commit is listed in .git-blame-ignore-revs; git blame --ignore-revs-file .git-blame-ignore-revs skips it."
  git rev-parse HEAD >>.git-blame-ignore-revs
  git add .git-blame-ignore-revs
  git commit -q -m "git blame: skip the commit that formatted the whole tree"
  echo "format-all: committed $(git rev-parse --short HEAD~1) and recorded it in .git-blame-ignore-revs"
else
  echo "format-all: not committed; check with 'npm run typecheck && npm run lint', then commit"
fi
