#!/usr/bin/env bash
# Builds the container image and smoke-tests it over HTTP: a PNG and an mp4 of a page served from the
# host, a loopback target refused, /healthz and /readyz, the HEALTHCHECK, Chromium's sandbox read off
# /proc in the container, the baked code cache, and a SIGTERM that drains a capture in flight. Prints the image's size.
# Not part of `npm test`: it needs podman (or docker) and a few minutes.
#
#   bash scripts/test-image.sh                  (podman; base images from ../shared/tools/container-base.sh)
#   CONTAINER=docker bash scripts/test-image.sh
#
# The container shares the host's network, so the page server listens on a host address that is not
# loopback and the service is told to allow exactly that address (CAPTURE_ALLOW_ADDRESSES).
set -euo pipefail
cd "$(dirname "$0")/.."

CONTAINER=${CONTAINER:-podman}
if [ "$CONTAINER" = podman ]; then
  # This kind of machine needs runc with cgroupfs, and Debian's sources of the host during the build.
  RUNTIME_FLAGS=${RUNTIME_FLAGS:---runtime runc --cgroup-manager cgroupfs}
  BUILD_FLAGS=${BUILD_FLAGS:---pull=never --format docker -v /etc/apt:/etc/apt:ro}
else
  RUNTIME_FLAGS=${RUNTIME_FLAGS:-}
  BUILD_FLAGS=${BUILD_FLAGS:-}
fi
IMAGE=${IMAGE:-capture-engine:smoke}
PORT=${PORT:-39300}
PAGE_PORT=${PAGE_PORT:-39301}
# The service refuses keys of CAPTURE_API_KEYS under 128 bits.
KEY=$(openssl rand -hex 32)
ce() { "$CONTAINER" $RUNTIME_FLAGS "$@"; }

work=$(mktemp -d)
name="capture-engine-smoke-$$"
page_pid=""
cleanup() {
  ce rm -f "$name" >/dev/null 2>&1 || true
  [ -z "$page_pid" ] || kill "$page_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
pass() { printf '  ok    %s\n' "$1"; }
fail() { printf '  FAIL  %s\n' "$1"; failures=$((failures + 1)); }
check() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }

echo "== build"
secret=()
[ -f "$HOME/.npmrc" ] && secret+=(--secret "id=npmrc,src=$HOME/.npmrc")
# A registry reached through a TLS proxy: the certificate authorities Node is told to trust here.
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ] && secret+=(--secret "id=npm-ca,src=$NODE_EXTRA_CA_CERTS")
start=$(date +%s)
ce build $BUILD_FLAGS --network host "${secret[@]}" -t "$IMAGE" . >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
size=$(ce image inspect --format '{{.Size}}' "$IMAGE")
echo "  built $IMAGE in $(( $(date +%s) - start )) s, $(( size / 1000000 )) MB"

echo "== image contents"
check "no registry credentials in any layer" "! ce run --rm --no-healthcheck --entrypoint sh '$IMAGE' -c 'ls -A /root /home/capture 2>/dev/null' | grep -q npmrc"
check "no build tools, tests or sources" "ce run --rm --no-healthcheck --entrypoint sh '$IMAGE' -c '! command -v gcc && ! command -v tsc && ! test -e /app/test && ! test -e /app/src && ! test -e /app/node_modules/typescript && ! test -e /app/node_modules/vitest'"
check "runs as a non-root user" "[ \"\$(ce run --rm --no-healthcheck --entrypoint id '$IMAGE' -u)\" != 0 ]"

echo "== page server on the host"
host_ip=$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')
[ -n "$host_ip" ] || host_ip=$(hostname -I | awk '{print $1}')
cat >"$work/page.html" <<'HTML'
<!doctype html><html><body style="margin:0;background:#fff">
<div style="width:200px;height:100px;background:rgb(255,0,0)"></div>
<div id="m" style="position:absolute;top:120px;left:0;width:40px;height:40px;background:#00f"></div>
<script>let x = 0; setInterval(() => { x = (x + 8) % 400; document.getElementById('m').style.left = x + 'px'; }, 33);</script>
</body></html>
HTML
node -e '
  const http = require("http"); const fs = require("fs");
  const page = fs.readFileSync(process.argv[1]); let hits = 0;
  http.createServer((req, res) => { hits++; res.setHeader("content-type", "text/html"); res.end(page); })
    .listen(Number(process.argv[2]), process.argv[3]);
' "$work/page.html" "$PAGE_PORT" "$host_ip" &
page_pid=$!
page="http://$host_ip:$PAGE_PORT/"
echo "  $page"

echo "== start"
ce run -d --name "$name" --network host --shm-size 1g \
  -e PORT="$PORT" -e CAPTURE_API_KEYS="$KEY:PRO" -e CAPTURE_ALLOW_ADDRESSES="$host_ip:$PAGE_PORT" \
  "$IMAGE" >/dev/null
api="http://127.0.0.1:$PORT"
for _ in $(seq 1 60); do curl -fsS "$api/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
check "/healthz answers 200" "curl -fsS -o /dev/null '$api/healthz'"
check "/readyz answers 200 once the browser is up" "curl -fsS -o /dev/null '$api/readyz'"
check "HEALTHCHECK passes" "ce healthcheck run '$name' >/dev/null 2>&1 || [ \"\$(ce inspect --format '{{.State.Health.Status}}' '$name' 2>/dev/null)\" = healthy ]"
check "PID 1 is tini" "ce exec '$name' sh -c 'tr \"\\0\" \" \" </proc/1/cmdline' | grep -q tini"

echo "== captures"
curl -sS -H "X-API-Key: $KEY" -o "$work/shot.png" -w '%{http_code}' "$api/api/v1/capture?url=$page&format=png&viewport_width=640&viewport_height=360" >"$work/png.code"
# Dimensions and the pixel at (10,10), read with the project's own sharp.
png_facts=$(node -e '
  const sharp = require("sharp");
  sharp(process.argv[1]).raw().toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => { const at = (10 * info.width + 10) * info.channels; console.log(`${info.width}x${info.height} ${data[at]},${data[at + 1]},${data[at + 2]}`); })
    .catch(() => console.log("not-an-image"));
' "$work/shot.png")
check "PNG of a host page: 200, PNG magic, 640x360 (got $(cat "$work/png.code"), $png_facts)" "[ \"\$(cat '$work/png.code')\" = 200 ] && [ \"\$(head -c 4 '$work/shot.png' | tail -c 3)\" = PNG ] && [ '${png_facts%% *}' = 640x360 ]"
check "its pixel at (10,10) is the page's red (got ${png_facts#* })" "[ '${png_facts#* }' = 255,0,0 ]"
curl -sS -H "X-API-Key: $KEY" -o "$work/clip.mp4" -w '%{http_code}' "$api/api/v1/capture?url=$page&format=mp4&duration=2&viewport_width=640&viewport_height=360" >"$work/mp4.code"
# ffprobe from the image itself: the host need not have ffmpeg.
duration=$(ce run --rm --no-healthcheck -v "$work/clip.mp4:/clip.mp4:ro" --entrypoint ffprobe "$IMAGE" -v error -show_entries format=duration -of csv=p=0 /clip.mp4 2>/dev/null || echo 0)
check "mp4 of a host page: 200, ftyp box, 2 s long (got $(cat "$work/mp4.code"), ${duration} s)" "[ \"\$(cat '$work/mp4.code')\" = 200 ] && [ \"\$(head -c 8 '$work/clip.mp4' | tail -c 4)\" = ftyp ] && awk 'BEGIN{exit !($duration > 1.9 && $duration < 2.1)}'"
code=$(curl -sS -H "X-API-Key: $KEY" -o "$work/blocked.png" -w '%{http_code}' "$api/api/v1/capture?url=$page&block_ads=true&viewport_width=640&viewport_height=360")
check "block_ads=true with the image's offline filter lists: 200 (got $code)" "[ '$code' = 200 ]"
code=$(curl -sS -H "X-API-Key: $KEY" -o "$work/refused.json" -w '%{http_code}' "$api/api/v1/capture?url=http://127.0.0.1:$PORT/healthz")
check "a loopback target inside the container: 403 URL_NOT_ALLOWED (got $code $(head -c 120 "$work/refused.json"))" "[ '$code' = 403 ] && grep -q URL_NOT_ALLOWED '$work/refused.json'"

echo "== Chromium's sandbox, read off /proc while a capture runs"
curl -sS -H "X-API-Key: $KEY" -o /dev/null "$api/api/v1/capture?url=$page&delay=3" &
slow_pid=$!
sleep 1.5
ce exec "$name" sh -c '
  for p in /proc/[0-9]*; do
    cmd=$(tr "\0" " " <$p/cmdline 2>/dev/null) || continue
    case "$cmd" in *chromium-headless-shell*) ;; *) continue ;; esac
    type=$(echo "$cmd" | sed -n "s/.*--type=\([a-z-]*\).*/\1/p"); [ -n "$type" ] || type=browser
    printf "%s uid=%s seccomp=%s filters=%s userns=%s pidns=%s\n" "$type" \
      "$(awk "/^Uid:/{print \$2}" $p/status)" "$(awk "/^Seccomp:/{print \$2}" $p/status)" \
      "$(awk "/^Seccomp_filters:/{print \$2}" $p/status)" "$(readlink $p/ns/user | tr -dc 0-9)" "$(readlink $p/ns/pid | tr -dc 0-9)"
  done' >"$work/procs.txt"
wait "$slow_pid"
sed 's/^/  | /' "$work/procs.txt"
browser_line=$(grep '^browser ' "$work/procs.txt" | head -1)
renderer_line=$(grep '^renderer ' "$work/procs.txt" | head -1)
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
check "a renderer was running" "[ -n '$renderer_line' ]"
check "renderer in seccomp filter mode (2)" "[ \"\$(field '$renderer_line' seccomp)\" = 2 ]"
check "renderer under Chromium's own seccomp-bpf filter on top of the runtime's" "[ \"\$(field '$renderer_line' filters)\" -gt \"\$(field '$browser_line' filters)\" ]"
check "renderer in its own user and PID namespaces" "[ \"\$(field '$renderer_line' userns)\" != \"\$(field '$browser_line' userns)\" ] && [ \"\$(field '$renderer_line' pidns)\" != \"\$(field '$browser_line' pidns)\" ]"
check "renderer uid is not root" "[ \"\$(field '$renderer_line' uid)\" != 0 ]"
check "no --no-sandbox on any Chromium" "! ce exec '$name' sh -c 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr \"\\0\" \" \"' | grep -q -- --no-sandbox"
check "no zombie processes" "! ce exec '$name' sh -c 'grep -l \"^State:.*Z\" /proc/[0-9]*/status 2>/dev/null' | grep -q ."

echo "== playwright-core's code cache, baked in at build"
# playwright-core's two bundles are the files over 100 kB (on Node 22+ in Node's folder for its version).
cache_files='find /app/code-cache -type f -size +100k -exec sha256sum {} + | sort'
baked=$(ce run --rm --no-healthcheck --entrypoint sh "$IMAGE" -c "$cache_files")
# The service has run for more than the 10 s after which it writes a cache V8 refused (on Node 22+
# with the modules it loaded since the import beside them).
running=$(ce exec "$name" sh -c "$cache_files")
baked_kept() { [ -z "$(comm -23 <(echo "$baked") <(echo "$running"))" ]; }
check "two cache files in the image" "[ \"\$(echo '$baked' | wc -l)\" = 2 ]"
check "the running service took them as they are (none written again)" baked_kept

echo "== SIGTERM drains a capture in flight"
curl -sS -H "X-API-Key: $KEY" -o "$work/drained.png" -w '%{http_code}' "$api/api/v1/capture?url=$page&delay=3&format=png" >"$work/drain.code" &
curl_pid=$!
sleep 1.5
ce kill --signal TERM "$name" >/dev/null
wait "$curl_pid" || true
exit_code=$(ce wait "$name" 2>/dev/null | tail -1)
check "the capture in flight finished with 200 (got $(cat "$work/drain.code"))" "[ \"\$(cat '$work/drain.code')\" = 200 ] && [ \"\$(head -c 4 '$work/drained.png' | tail -c 3)\" = PNG ]"
check "the container exited 0 (got $exit_code)" "[ '$exit_code' = 0 ]"
check "the service logged its drain" "ce logs '$name' 2>&1 | grep -q 'shutting down'"

echo "== image: $IMAGE, $(( size / 1000000 )) MB"
if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
