#!/usr/bin/env bash
# The README's set-up from a clean clone, on the npm that Node 20 ships (10) and on npm 11, with an
# `nvcc` on PATH that reports CUDA 13 and with no `nvcc` at all, nothing set in the environment:
#
#   npm ci && npx coreb eval
#
# must install (no install script of a dependency runs: onnxruntime-node's would ask nvcc and download
# CUDA files from GitHub), build on first use, print the leaderboard, and leave onnxruntime-node's CPU
# binding loadable. The machine reaches only the npm registry, so any other download fails the check.
# `.ci/run` runs `npm ci && npm test` (the README's other command) in the checkout itself, with the
# same fake nvcc first on PATH.
#
#   bash scripts/check-install.sh [REPO]      REPO: a git URL or path to clone (default: this checkout)
# Prints one line per leg with its times; exit 1 when a leg fails (its log is printed).
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d /tmp/coreb-install-XXXXXX)
trap 'rm -rf "$work"' EXIT

# An nvcc that reports CUDA 13, the version onnxruntime-node 1.21's script cannot handle.
mkdir -p "$work/nvcc13"
cat >"$work/nvcc13/nvcc" <<'EOF'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 13.0, V13.0.48"
echo "Build cuda_13.0.r13.0/compiler.36424714_0"
EOF
chmod +x "$work/nvcc13/nvcc"

# PATH without any nvcc: a folder that holds one is replaced by a copy of its links minus nvcc.
no_nvcc_path() {
  local out='' i=0 dir f
  IFS=: read -ra dirs <<<"$PATH"
  for dir in "${dirs[@]}"; do
    if [ -x "$dir/nvcc" ]; then
      i=$((i + 1))
      mkdir -p "$work/path$i"
      for f in "$dir"/*; do [ "$(basename "$f")" = nvcc ] || ln -sf "$f" "$work/path$i/"; done
      dir="$work/path$i"
    fi
    out="${out:+$out:}$dir"
  done
  printf '%s' "$out"
}

# npm 10 (the one Node 20 ships) and npm 11 from the registry, each as `npm` and `npx` first on PATH
# (whatever npm the machine has).
for major in 10 11; do
  mkdir -p "$work/npm$major/bin"
  npm install --prefix "$work/npm$major" --no-audit --no-fund --loglevel=error "npm@$major" >/dev/null
  ln -s "$work/npm$major/node_modules/npm/bin/npm-cli.js" "$work/npm$major/bin/npm"
  ln -s "$work/npm$major/node_modules/npm/bin/npx-cli.js" "$work/npm$major/bin/npx"
done

# What reaches the installs: PATH, HOME (npm's own ~/.npmrc and cache) and the network settings
# the machine may need to reach the registry; nothing else (no ONNXRUNTIME_NODE_INSTALL* above all).
pass_env=(HOME="$HOME")
for v in http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY npm_config_registry NPM_CONFIG_REGISTRY; do
  if [ -n "${!v:-}" ]; then pass_env+=("$v=${!v}"); fi
done

status=0
leg() { # name PATH
  local name=$1 path=$2 dir="$work/$1" log="$work/$1.log" t0 t1 t2 v
  git clone -q "$repo" "$dir"
  v=$(cd "$dir" && env PATH="$path" npm --version)
  t0=$(date +%s)
  if ! (cd "$dir" && env -i PATH="$path" "${pass_env[@]}" bash -c 'npm ci --no-audit --no-fund' >"$log" 2>&1); then
    echo "check-install: $name (npm $v): npm ci failed"; cat "$log"; status=1; return
  fi
  t1=$(date +%s)
  if ! (cd "$dir" && env -i PATH="$path" "${pass_env[@]}" bash -c 'npx coreb eval' >>"$log" 2>&1); then
    echo "check-install: $name (npm $v): npx coreb eval failed"; cat "$log"; status=1; return
  fi
  t2=$(date +%s)
  if ! grep -q '^1  *bm25  *0\.[0-9]' "$log" || ! grep -q '^Leaderboard' "$log"; then
    echo "check-install: $name (npm $v): no leaderboard printed"; cat "$log"; status=1; return
  fi
  if grep -q 'Downloading' "$log" || [ -e "$dir/node_modules/onnxruntime-node/bin/napi-v3/linux/x64/libonnxruntime_providers_cuda.so" ]; then
    echo "check-install: $name (npm $v): an install script downloaded CUDA files"; cat "$log"; status=1; return
  fi
  if ! (cd "$dir" && node -e "import('onnxruntime-node').then((o) => { if (typeof o.InferenceSession?.create !== 'function') process.exit(1); })") >>"$log" 2>&1; then
    echo "check-install: $name (npm $v): onnxruntime-node does not load"; cat "$log"; status=1; return
  fi
  echo "check-install: $name: npm $v, npm ci $((t1 - t0)) s, first npx coreb eval (build + run) $((t2 - t1)) s: ok"
}

leg npm10-nvcc13 "$work/npm10/bin:$work/nvcc13:$PATH"
leg npm11-no-nvcc "$work/npm11/bin:$(no_nvcc_path)"
exit $status
