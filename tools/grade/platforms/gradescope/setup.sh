#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the memlab autograder's image for lab
# @LAB_DIR@ (./memlab package gradescope @PROGRAM@ OUT wrote it). The autograder's files are in
# /autograder/source; memlab/ is the instructor's checkout. It installs the CUDA 13 toolkit
# (the grader compiles each submission with nvcc) from NVIDIA's apt repository for the image's
# Ubuntu release, then memlab's Debian packages, then builds memlab. Gradescope's machines have
# no GPU: the build is for every architecture CUDA 13 supports.
set -euo pipefail
. /etc/os-release
repository=https://developer.download.nvidia.com/compute/cuda/repos/${ID}${VERSION_ID//./}/x86_64
apt-get update
apt-get install -y --no-install-recommends ca-certificates wget
wget -q -O /tmp/cuda-keyring.deb "$repository/cuda-keyring_1.1-1_all.deb"
dpkg -i /tmp/cuda-keyring.deb
apt-get update
apt-get install -y --no-install-recommends cuda-toolkit-13-0
export PATH=/usr/local/cuda/bin:$PATH
cd /autograder/source/memlab
./memlab setup
# ./memlab builds what a command needs; --check-rubric reads every lab's rubric, so a malformed
# one stops the autograder's build here, not in a student's run.
./memlab grade --check-rubric labs/*/rubric
