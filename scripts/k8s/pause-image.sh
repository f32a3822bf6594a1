#!/usr/bin/env bash
# The test cluster's pod sandbox ("pause") image, with no registry: a static C program that
# sleeps until a signal, FROM scratch, written as a docker-archive tar to OUT (kept if present).
# usage: pause-image.sh OUT.tar
set -euo pipefail
. "$(dirname "$0")/../cache-lib.sh"
out=$1
# A docker-archive names its layers in manifest.json: a tar without it (or cut short) is rebuilt.
if why=$(tar_complete "$out" manifest.json); then exit 0; fi
[ -e "$out" ] && cache_note pause-image "rebuilding $out: $why"
rm -rf "$out"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
printf '#include <signal.h>\n#include <unistd.h>\nstatic void quit(int s) { (void)s; _exit(0); }\nint main(void) { signal(SIGTERM, quit); signal(SIGINT, quit); for (;;) pause(); }\n' > "$d/pause.c"
gcc -O2 -static -o "$d/pause" "$d/pause.c"
printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' > "$d/Containerfile"
podman build -q --pull=never -t localhost/pause:local "$d" >/dev/null
podman save -q --format docker-archive -o "$out.part" localhost/pause:local && mv "$out.part" "$out"
