# Sourced by gpu_check.sh and gpu_expert.sh from the repo root: installs the wheels carried
# in .whl/ (packages the lent machine lacks) into /tmp/site unless NO_WHEELS is set, and
# sets the environment both run under (src and tests/support importable, offline, unbuffered).
if [ -z "${NO_WHEELS:-}" ] && compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
fi
# wheels an earlier call of the same lease installed stay in /tmp/site
[ -z "${NO_WHEELS:-}" ] && [ -d /tmp/site ] && export PYTHONPATH=/tmp/site
export PYTHONPATH="$PWD/src:$PWD/tests/support:${PYTHONPATH:-}" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
export TOKENIZERS_PARALLELISM=false
