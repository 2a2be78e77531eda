#!/usr/bin/env bash
# make layers, its last rule (doc/architecture.md): every path of the tree that a page, README.md
# or a comment names exists. doc/contributing.md §13: comments cite files and doc/ pages.
#
#   tests/check_paths.sh [ROOT]    ROOT: the tree to check (default: the current directory)
#
# Where: every Markdown file (its text and its links), and the comments of the C files
# (/* ... */ and //) and of the shell scripts, make fragments and the Makefile (# ...); the
# template tree tests/integration/new_algo/ names the files of its copy, so it is skipped.
# What: a word that starts with a top folder of the tree (rti/, federate/, algorithms/, fom/,
# tests/, examples/, doc/, mk/, python/) and a Markdown link's target. It must exist as written,
# relative to the root or to the file's folder; a test program is named without its ".c" or
# ".sh", a file of the template tree by its path in the copy. A name with a placeholder (NAME,
# NN, <name>, *, {c,h}, ...) is a pattern, and a name in build/ a product of the build: no path.
# Prints one line per missing path ("FILE:LINE: PATH: no such file"); exit 1 if any.
set -u
root=${1:-.}
cd "$root" || exit 2

bad=0

list() { # the tracked files (git), or every file when ROOT is not a work tree
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- "$@"
  else
    local pat args=()
    for pat in "$@"; do args+=(-o -name "$pat"); done
    find . -path ./build -prune -o -path ./.git -prune -o -type f \( -false "${args[@]}" \) -print |
      sed 's|^\./||'
  fi
}
files=$(list '*.md' '*.c' '*.h' '*.sh' '*.mk' 'Makefile' | grep -v '^tests/integration/new_algo/' | sort)

# "FILE:LINE:TEXT" for the text that counts: a Markdown file's lines, the comments of a C file
# (/* ... */ and //; strings and code left out) and of a shell script or make file (# ...).
texts() {
  local md=() c=() sh=() f
  for f in $files; do
    case "$f" in *.md) md+=("$f") ;; *.c | *.h) c+=("$f") ;; *) sh+=("$f") ;; esac
  done
  [ ${#md[@]} -eq 0 ] || grep -Hn '' "${md[@]}"
  [ ${#c[@]} -eq 0 ] || awk '
    FNR == 1 { inc = 0 }
    {
      out = ""; s = $0; i = 1; n = length(s); q = ""
      while (i <= n) {
        ch = substr(s, i, 1); d = substr(s, i, 2)
        if (inc) {
          if (d == "*/") { inc = 0; i += 2; out = out " "; continue }
          out = out ch; i++; continue
        }
        if (q != "") {
          if (ch == "\\") { i += 2; continue }
          if (ch == q) q = ""
          i++; continue
        }
        if (d == "/*") { inc = 1; i += 2; out = out " "; continue }
        if (d == "//") { out = out " " substr(s, i + 2); break }
        if (ch == "\"" || ch == "\047") q = ch
        i++
      }
      if (out ~ /[a-z]\//) print FILENAME ":" FNR ":" out
    }' "${c[@]}"
  [ ${#sh[@]} -eq 0 ] || awk '
    match($0, /(^|[ \t])#/) { print FILENAME ":" FNR ":" substr($0, RSTART + RLENGTH) }' "${sh[@]}"
}

# "FILE:LINE:P" for every word P that starts with a top folder; "FILE:LINE:@T" for the target T
# of a Markdown link.
words() {
  awk -v tops='^(rti|federate|algorithms|fom|tests|examples|doc|mk|python)/' '
    {
      f = $0; sub(/:.*/, "", f); rest = substr($0, length(f) + 2)
      n = rest; sub(/:.*/, "", n); t = substr(rest, length(n) + 2)
      s = t
      while (match(s, /[A-Za-z0-9_.\/<>{},*-]+/)) {
        w = substr(s, RSTART, RLENGTH); prev = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
        s = substr(s, RSTART + RLENGTH)
        if (w ~ tops && prev != "/" && prev != ".") {
          sub(/[.,:]+$/, "", w); print f ":" n ":" w
        }
      }
      if (f ~ /\.md$/) {
        s = t
        while (match(s, /\]\([A-Za-z0-9_.\/#-]*[.\/][A-Za-z0-9_.\/#-]*\)/)) {
          w = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
          sub(/#.*/, "", w)
          if (w != "" && w !~ /^(https?|mailto):/) print f ":" n ":@" w
        }
      }
    }'
}

while IFS=: read -r f n p; do
  d=${f%/*}; [ "$d" = "$f" ] && d=.
  case "$p" in
    @*) p=${p#@}; [ -e "$d/$p" ] && continue; echo "$f:$n: $p: no such file (a link)"; bad=1; continue ;;
  esac
  [ -e "$p" ] || [ -e "$d/$p" ] || [ -e "$p.c" ] || [ -e "$p.sh" ] && continue
  [ -e "tests/integration/new_algo/$p" ] && continue # the template's files, named in its script
  case "$p" in *'*'* | *'<'* | *'{'* | *'...'* | *[A-Z][A-Z]* | *build/*) continue ;; esac
  echo "$f:$n: $p: no such file"
  bad=1
done < <(texts | words)
exit $bad
