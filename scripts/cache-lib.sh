# Sourced by the scripts that keep a cache of their own (docker/build-images.sh, scripts/k8s/*):
# the checks they run before trusting what an earlier run left behind, and the one-line notes they
# print. A cache is made under a temporary name and renamed into place only once it is complete, so
# an interrupted run leaves no file that looks finished; and what is found is checked anyway (an
# older version of a script, a full disk or a hand may have left something else there).
#
# Every function prints nothing on success unless it says otherwise; `cache_fail` prints what
# failed and why, and exits.

# Prints one line on stderr: what a script found in its cache and what it did about it.
# usage: cache_note SCRIPT MESSAGE
cache_note() { printf '%s: %s\n' "$1" "$2" >&2; }

# Prints what failed and why on stderr and exits 1.
# usage: cache_fail SCRIPT MESSAGE
cache_fail() { printf '%s: FAILED: %s\n' "$1" "$2" >&2; exit 1; }

# Every URI of a Debian source this machine's apt uses, one a line, in the order apt reads them,
# whatever form its sources take: deb822 files (/etc/apt/sources.list.d/*.sources, Debian 12's
# default: `URIs:` lines) and the one-line form (/etc/apt/sources.list and sources.list.d/*.list:
# `deb [options] URI suite components`). Status 1 when apt has no source file at all. APT_ETC
# (default /etc/apt) is the directory read, for tests.
apt_source_uris() {
  local etc=${APT_ETC:-/etc/apt} f
  local files=()
  for f in "$etc"/sources.list.d/*.sources "$etc"/sources.list "$etc"/sources.list.d/*.list; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 1
  awk '
    FILENAME ~ /\.sources$/ {
      if (tolower($1) == "uris:") for (i = 2; i <= NF; i++) print $i
      next
    }
    $1 == "deb" {
      # Options in brackets may hold spaces: skip to the field after the closing bracket.
      i = 2
      if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if (i <= NF) print $i
    }' "${files[@]}"
}

# The Debian archive this machine's apt uses (apt_source_uris). The security archive is skipped:
# it has no bookworm suite of the main archive. Prints the first URI found, or nothing (status 1)
# when apt has no Debian source at all.
debian_mirror() {
  local uri
  uri=$(apt_source_uris | grep -v -- '-security' | head -n 1) || true
  [ -n "$uri" ] || return 1
  printf '%s\n' "$uri"
}

# The Debian security archive this machine's apt uses (a URI ending in -security, as
# deb.debian.org/debian-security and security.debian.org/debian-security do): the only place a
# stable release's browser gets its security fixes between point releases. Prints the first one,
# or nothing (status 1) when apt has none.
debian_security_mirror() {
  local uri
  uri=$(apt_source_uris | grep -E -- '-security/?$' | head -n 1) || true
  [ -n "$uri" ] || return 1
  printf '%s\n' "$uri"
}

# Whether FILE is a complete tar archive holding every MEMBER named (paths as tar lists them,
# without a leading "./"): a regular non-empty file that tar reads to the end. A directory, an
# empty or truncated file, or an archive of something else fails. Prints why on stdout when not.
# usage: tar_complete FILE [MEMBER...]
tar_complete() {
  local file=$1; shift
  if [ -d "$file" ]; then echo "$file is a directory, not a tar archive"; return 1; fi
  if [ ! -s "$file" ]; then echo "$file is missing or empty"; return 1; fi
  # tar -t stops quietly at a cut that falls on a header boundary: a complete archive is a whole
  # number of 512-byte blocks and ends with two zero blocks (the end-of-archive marker).
  local size
  size=$(stat -c %s "$file")
  if [ $((size % 512)) != 0 ] || [ "$size" -lt 1024 ] ||
     [ "$(tail -c 1024 "$file" | tr -d '\0' | head -c 1 | wc -c)" != 0 ]; then
    echo "$file is not a complete tar archive (no end-of-archive marker: cut short?)"
    return 1
  fi
  local listing
  if ! listing=$(tar -tf "$file" 2>&1); then
    echo "$file is not a complete tar archive (${listing##*$'\n'})"
    return 1
  fi
  listing=${listing//$'\n'.\//$'\n'}  # "./etc/x" -> "etc/x"
  listing=${listing#./}
  local m
  for m in "$@"; do
    # A here-string, not a pipe: grep -q leaves at its first match, and the writer of a pipe
    # would then die of SIGPIPE, a failure under the callers' pipefail.
    if ! grep -qxF -- "$m" <<<"$listing"; then
      echo "$file lacks $m"
      return 1
    fi
  done
  return 0
}
