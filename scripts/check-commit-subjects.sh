#!/usr/bin/env bash
# Checks the commit message rule of CONTRIBUTING.md on the commits after a ref: a subject line under 72
# characters (71 at most), and a blank line between the subject and a body. Old history has longer subjects, so
# give the ref your branch started from:
#
#   scripts/check-commit-subjects.sh main          the commits on this branch that main does not have
#   scripts/check-commit-subjects.sh v0.1.0 HEAD   a range
#
# Merge commits are skipped (git writes their subjects). Exit 1 names each commit that breaks the rule.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/check-commit-subjects.sh BASE [HEAD]" >&2
  exit 2
fi
base=$1
head=${2:-HEAD}
max=71
export LC_ALL=C.UTF-8 # wc -m counts characters, not bytes (Chinese names in subjects)
bad=0

while IFS= read -r sha; do
  subject=$(git log -1 --format=%s "$sha")
  second=$(git log -1 --format=%B "$sha" | sed -n 2p)
  length=$(printf '%s' "$subject" | wc -m)
  if [ "$length" -gt "$max" ]; then
    echo "$(git rev-parse --short "$sha"): subject is $length characters (must be under 72): $subject"
    bad=1
  fi
  if [ -n "$second" ]; then
    echo "$(git rev-parse --short "$sha"): no blank line after the subject"
    bad=1
  fi
done < <(git rev-list --no-merges "$base..$head")

exit $bad
