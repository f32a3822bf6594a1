#!/usr/bin/env bash
# scripts/cache-lib.sh: debian_mirror and debian_security_mirror on every form apt's sources take
# (deb822 only, as Debian 12 images ship; the one-line sources.list only, with and without
# [options]; both; security only; none), and tar_complete on what an interrupted or older run leaves under a cache's name
# (a directory, an empty file, a truncated tar, a tar of something else) next to a good one.
# usage: cache_lib_test.sh REPO
set -uo pipefail
repo=$1
. "$repo/scripts/cache-lib.sh"
. "$repo/tests/cli/cli_test_lib.sh"

expect_uri() {  # FUNCTION NAME EXPECTED (empty: none found, status 1)
  local got status
  got=$(APT_ETC="$tmp/apt" "$1"); status=$?
  if [ -z "$3" ]; then
    [ "$status" = 1 ] && [ -z "$got" ] || fail "$1: $2: expected none, got '$got' (status $status)"
  else
    [ "$status" = 0 ] && [ "$got" = "$3" ] || fail "$1: $2: expected '$3', got '$got' (status $status)"
  fi
}
expect_mirror() { expect_uri debian_mirror "$@"; }
expect_security() { expect_uri debian_security_mirror "$@"; }
apt_etc() { rm -rf "$tmp/apt"; mkdir -p "$tmp/apt/sources.list.d"; }

apt_etc
cat > "$tmp/apt/sources.list.d/debian.sources" <<'S'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
S
expect_mirror "deb822 only (no sources.list)" http://deb.debian.org/debian
expect_security "deb822 only (no sources.list)" http://deb.debian.org/debian-security

apt_etc
printf 'deb http://deb.debian.org/debian-security bookworm-security main\n' > "$tmp/apt/sources.list.d/debian.sources.tmp"
printf 'Types: deb\nURIs: http://security.debian.org/debian-security\nSuites: bookworm-security\nComponents: main\n' > "$tmp/apt/sources.list.d/security.sources"
printf '# a comment\ndeb http://mirror.example/debian bookworm main\ndeb-src http://src.example/debian bookworm main\n' > "$tmp/apt/sources.list"
expect_mirror "sources.list only, security as deb822" http://mirror.example/debian
expect_security "sources.list only, security as deb822" http://security.debian.org/debian-security

apt_etc
printf 'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://ftp.example/debian bookworm main\n' > "$tmp/apt/sources.list"
expect_mirror "sources.list with [options]" http://ftp.example/debian
expect_security "no security archive" ""

apt_etc
printf 'deb [ arch=amd64 trusted=yes ] http://spaced.example/debian bookworm main\n' > "$tmp/apt/sources.list.d/extra.list"
expect_mirror "a .list file with spaced [ options ]" http://spaced.example/debian

apt_etc
printf 'deb http://deb.debian.org/debian-security bookworm-security main\n' > "$tmp/apt/sources.list"
expect_mirror "security archive only" ""
expect_security "security archive only, one-line form" http://deb.debian.org/debian-security

apt_etc
expect_mirror "no sources at all" ""
expect_security "no sources at all" ""

# tar_complete
mkdir -p "$tmp/root/etc" "$tmp/root/usr/bin"
echo 12.8 > "$tmp/root/etc/debian_version"
echo x > "$tmp/root/usr/bin/apt-get"
tar -C "$tmp/root" -cf "$tmp/good.tar" ./etc ./usr
members=(etc/debian_version usr/bin/apt-get)
why=$(tar_complete "$tmp/good.tar" "${members[@]}") || fail "a good tar refused: $why"

mkdir "$tmp/dir.tar"
why=$(tar_complete "$tmp/dir.tar" "${members[@]}") && fail "a directory accepted as a tar"
case "$why" in *directory*) ;; *) fail "a directory: no reason given ('$why')" ;; esac

: > "$tmp/empty.tar"
why=$(tar_complete "$tmp/empty.tar" "${members[@]}") && fail "an empty file accepted"
why=$(tar_complete "$tmp/missing.tar" "${members[@]}") && fail "a missing file accepted"

head -c 700 "$tmp/good.tar" > "$tmp/cut.tar"
why=$(tar_complete "$tmp/cut.tar" "${members[@]}") && fail "a truncated tar accepted"
case "$why" in *"not a complete tar"*) ;; *) fail "a truncated tar: no reason given ('$why')" ;; esac

tar -C "$tmp/root" -cf "$tmp/other.tar" ./etc
why=$(tar_complete "$tmp/other.tar" "${members[@]}") && fail "a tar without usr/bin/apt-get accepted"
case "$why" in *"lacks usr/bin/apt-get"*) ;; *) fail "a tar lacking a member: no reason given ('$why')" ;; esac

# A large archive (its listing far over a pipe's buffer) whose members come first, as a Debian
# root's etc/ does: nothing may stop reading the listing early and fail under pipefail.
mkdir -p "$tmp/big/etc" "$tmp/big/usr/bin" "$tmp/big/zz"
echo 12.8 > "$tmp/big/etc/debian_version"
echo x > "$tmp/big/usr/bin/apt-get"
for i in $(seq 1 4000); do : > "$tmp/big/zz/a-rather-long-file-name-to-fill-the-listing-$i"; done
tar -C "$tmp/big" -cf "$tmp/big.tar" ./etc ./usr ./zz
why=$(set -o pipefail; tar_complete "$tmp/big.tar" "${members[@]}") || fail "a large good tar refused: $why"

head -c 4096 /dev/urandom > "$tmp/noise.tar"
why=$(tar_complete "$tmp/noise.tar" "${members[@]}") && fail "random bytes accepted as a tar"

if [ "$failures" -gt 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cache-lib: all checks passed"
