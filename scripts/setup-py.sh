#!/usr/bin/env bash
# Installs the Python test tools into target/py, idempotently: the official `openai` package
# (proves the OpenAI-compatible fake), moto's S3-compatible server (storage tests) and
# schemathesis (the API contract).
source "$(dirname "$0")/lib.sh"
step "Python test tools"
venv="$ROOT/target/py"
requirements="$ROOT/tests/python/requirements.txt"
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
  note "target/py: present"
  exit 0
fi
have python3 || apt_install python3 python3-venv
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
note "target/py: $("$venv/bin/python" -c 'import openai, moto; print("openai", openai.__version__, "moto", moto.__version__)')"
