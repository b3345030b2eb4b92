#!/usr/bin/env bash
# Fails (and names the files) when a C++ file of the repository is not as clang-format (the
# repository's .clang-format) would write it. ctest runs it as format/clang_format.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')
else
  mapfile -t files < <(find core plugins sdk tests bench -name '*.cpp' -o -name '*.hpp' -o -name '*.h')
fi
clang-format --dry-run --Werror "${files[@]}"
echo "clang-format: ${#files[@]} files as .clang-format writes them"
