#!/usr/bin/env bash
# Installs the Debian 12 packages libstencil needs, only those missing. Idempotent.
set -euo pipefail
pkgs=(gcc g++ pkg-config meson ninja-build python3 mpich libmpich-dev check
      ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libpng-dev
      clang libclang-rt-14-dev clang-format valgrind hipcc libamdhip64-dev
      libhdf5-mpich-dev python3-h5py iproute2)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "deps: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# CUDA is not a Debian 12 main package: use the toolkit where it is installed.
if [ -x /usr/local/cuda/bin/nvcc ]; then echo "deps: nvcc found in /usr/local/cuda/bin"; fi
