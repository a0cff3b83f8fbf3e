#!/usr/bin/env bash
# Sanitize a file of untrusted text and fence it before pasting it into a prompt.
#
#   examples/fence-prompt.sh tool-output.txt [max-bytes] > block.txt
#
# The fence token is derived from the exact sanitized bytes and is provably absent
# from them, so the text cannot close its own block. Exit 1 when airlock rejects the
# text (a forged wrapper literal), 2 on unreadable or non-UTF-8 input.
set -euo pipefail

file=${1:?usage: fence-prompt.sh FILE [MAX_BYTES]}
max=${2:-8000}
clean=$(mktemp)
trap 'rm -f "$clean"' EXIT

# Sanitize into a file: $(...) would drop trailing newlines and change the bytes
# the token is derived from.
airlock sanitize --field tool-output --max-bytes "$max" "$file" > "$clean"
token=$(airlock fence "$clean")

printf '<untrusted-%s>\n' "$token"
cat "$clean"
printf '\n</untrusted-%s>\n' "$token"
